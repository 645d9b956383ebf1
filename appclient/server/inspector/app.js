// The run inspector: plain JavaScript, no dependencies. Everything from the server is put on
// the page with textContent (never innerHTML), so tool outputs and answers show as text.
"use strict";

const TOKEN_KEY = "appclient-inspector-token";
const API = "/inspector/api/conversations";
let selected = null;
let lastList = "";
let lastDetail = "";

function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child === null || child === undefined || child === "") continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString() : "";
}

function json(value) {
  return el("pre", null, JSON.stringify(value, null, 2));
}

async function api(path) {
  const response = await fetch(path, {
    headers: { Authorization: "Bearer " + sessionStorage.getItem(TOKEN_KEY) },
    cache: "no-store",
  });
  if (response.status === 401) {
    signOut("This token is not accepted by the server.");
    throw new Error("unauthorized");
  }
  if (!response.ok) throw new Error("HTTP " + response.status);
  const data = await response.json();
  // The request id differs on every answer: compare the rest, so an unchanged page is left
  // as it is (no flicker, a selection survives).
  const { request_id: _ignored, ...rest } = data;
  return { text: JSON.stringify(rest), data };
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  selected = null;
  lastList = lastDetail = "";
  document.getElementById("workspace").hidden = true;
  document.getElementById("session").hidden = true;
  document.getElementById("sign-in-panel").hidden = false;
  const error = document.getElementById("sign-in-error");
  error.textContent = message || "";
  error.hidden = !message;
}

function renderList(conversations) {
  const list = document.getElementById("conversation-list");
  list.replaceChildren();
  document.getElementById("no-conversations").hidden = conversations.length > 0;
  for (const item of conversations) {
    const state = item.running ? el("span", "badge running", "running")
      : item.waiting_for_outputs ? el("span", "badge interrupt", "waiting for outputs") : null;
    const entry = el("li", item.conversation_id === selected ? "selected" : null,
      el("span", "id", item.conversation_id.slice(0, 13) + "…"), state,
      el("span", "query", item.last_query || "(no query yet)"),
      el("span", "meta", `${when(item.created_at)} · ${item.runs} run(s)`));
    entry.dataset.conversationId = item.conversation_id;
    entry.addEventListener("click", () => {
      selected = item.conversation_id;
      lastList = lastDetail = ""; // redraw both: the list shows the selection
      refresh();
    });
    list.append(entry);
  }
}

function renderEvent(event) {
  if (event.kind === "component") {
    return el("div", "step component", el("span", "label", "☁ " + event.name),
      el("span", "meta id", event.call_id), json(event.arguments),
      el("div", "text", event.output));
  }
  if (event.kind === "tool_calls") {
    const calls = event.calls.map((call) => el("div", "step tool-call",
      el("span", "label", "⚙ " + call.name), el("span", "meta id", call.id), json(call.arguments)));
    return el("div", null, event.thought ? el("div", "text muted", event.thought) : null, ...calls);
  }
  if (event.kind === "error") {
    return el("div", "step error", el("span", "label", "error " + event.code),
      el("span", "text", event.message));
  }
  return el("div", "step answer", el("span", "label", "answer"), el("div", "text", event.text));
}

function renderRun(run, names) {
  const outputs = run.outputs.map((output) => el("div", "step tool-output",
    el("span", "label", "↩ " + (names[output.tool_call_id] || "tool output")),
    el("span", "meta id", output.tool_call_id), el("div", "text", output.output)));
  const usage = run.usage ? `tokens ${run.usage.prompt_tokens ?? "?"} in / ${run.usage.completion_tokens ?? "?"} out` : "";
  return el("section", "card run " + run.ending,
    el("div", "run-head",
      el("h3", null, run.query ? "Query" : "Tool outputs",
        el("span", "badge " + run.ending, run.ending), run.stream ? el("span", "badge stream", "stream") : null),
      el("span", "meta", `${when(run.started)} · ${(run.seconds * 1000).toFixed(1)} ms`)),
    run.query ? el("div", "text query", run.query) : null,
    ...outputs,
    ...run.events.map(renderEvent),
    el("div", "meta", el("span", "id", "request " + run.request_id), usage ? " · " + usage : ""));
}

function renderDetail(detail) {
  const root = document.getElementById("detail");
  const names = {};
  for (const run of detail.runs) {
    for (const event of run.events) {
      if (event.kind === "tool_calls") for (const call of event.calls) names[call.id] = call.name;
    }
  }
  const tools = detail.tools.map((tool) => el("span", null, tool.name));
  const parts = [
    el("section", "card", el("h2", null, "Conversation"),
      el("div", "id", detail.conversation_id),
      el("div", "meta", `app ${detail.app_id} · created ${when(detail.created_at)}`),
      tools.length ? el("div", "tools", ...tools) : el("div", "meta", "no local tools")),
    ...detail.runs.map((run) => renderRun(run, names)),
  ];
  if (detail.running) {
    parts.push(el("section", "card run running",
      el("div", "run-head", el("h3", null, "Run in progress", el("span", "badge running", "running")),
        el("span", "meta", "since " + when(detail.running.started))),
      detail.running.query ? el("div", "text query", detail.running.query) : null,
      detail.running.answer ? el("div", "step answer", el("span", "label", "answer so far"),
        el("div", "text live-answer", detail.running.answer)) : null));
  } else if (detail.waiting_for.length) {
    parts.push(el("section", "card run interrupt",
      el("h3", null, "Waiting for tool outputs"),
      ...detail.waiting_for.map((call) => el("div", "step", el("span", "label", "⚙ " + call.name),
        el("span", "meta id", call.id), json(call.arguments)))));
  }
  if (detail.files.length) {
    parts.push(el("section", "card", el("h3", null, "Files"),
      ...detail.files.map((f) => el("div", "text", `${f.name} (${f.url || f.size + " bytes"}) `, el("span", "id", f.file_id)))));
  }
  if (detail.feedback.length) {
    parts.push(el("section", "card", el("h3", null, "Feedback"),
      ...detail.feedback.map((f) => el("div", "text", `${f.type} ${f.reason || ""} `, el("span", "id", f.message_id)))));
  }
  root.replaceChildren(...parts);
}

async function refresh() {
  if (!sessionStorage.getItem(TOKEN_KEY)) return;
  try {
    const list = await api(API);
    if (list.text !== lastList) {
      lastList = list.text;
      renderList(list.data.conversations);
    }
    if (selected) {
      const detail = await api(API + "/" + encodeURIComponent(selected));
      if (detail.text !== lastDetail) {
        lastDetail = detail.text;
        renderDetail(detail.data);
      }
    }
    document.getElementById("refreshed").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (error) {
    document.getElementById("refreshed").textContent = "not updated: " + error.message;
  }
}

function showWorkspace() {
  document.getElementById("sign-in-panel").hidden = true;
  document.getElementById("workspace").hidden = false;
  document.getElementById("session").hidden = false;
  refresh();
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("sign-in").addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    const field = document.getElementById("token");
    sessionStorage.setItem(TOKEN_KEY, field.value.trim());
    field.value = "";
    showWorkspace();
  });
  document.getElementById("sign-out").addEventListener("click", () => signOut(""));
  if (sessionStorage.getItem(TOKEN_KEY)) showWorkspace();
  setInterval(refresh, 1000);
});
