"""The run inspector in a real browser: headless Chromium (Debian's) driven by selenium.

Without Chromium, its driver or selenium these tests skip, except under ``CI``, where they
fail: CI installs all three. A screenshot of the tool round trip's timeline is saved in the
test's temporary folder (its path is printed).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from appclient import AppClient
from appclient.server import ModelAgent
from appclient.testing import ModelReply, ReferenceServer, ScriptedModel

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
OTHER_TOKEN = "someone-elses-token"
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401 - only whether it is installed
    except ImportError:
        return "selenium is not installed (the test extra)"
    if CHROMIUM is None or CHROMEDRIVER is None:
        return "Debian's chromium and chromium-driver are not installed"
    return None


if (reason := _missing()) is not None:
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests must run in CI: {reason}", pytrace=False)
    pytest.skip(reason, allow_module_level=True)

from selenium import webdriver  # noqa: E402 - only once it is known to be installed
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def get_current_weather(location: str) -> str:
    """Get the current weather of a city.

    Args:
        location: The city, e.g. 北京.
    """
    return f"{location}今天晴，25度 {XSS}"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium with a fresh profile and no background network traffic."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1366,900",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


ROUND_TRIP = [
    ModelReply(tool_calls=(("get_current_weather", {"location": "北京"}),)),
    "北京今天晴，最高25度。",
]


@pytest.fixture
def serve() -> Iterator[Callable[[list[Any]], ReferenceServer]]:
    """Start a reference server planning with a model scripted with the given steps."""
    with ExitStack() as stack:

        def start(steps: list[Any]) -> ReferenceServer:
            model = stack.enter_context(ScriptedModel(steps, chunk_chars=4))
            agent = ModelAgent(base_url=model.url, model="scripted", max_retries=0)
            return stack.enter_context(ReferenceServer(agent, extra_tokens=[OTHER_TOKEN]))

        yield start


def _wait(driver: Any, condition: Any, timeout: float = 15) -> Any:
    return WebDriverWait(driver, timeout).until(condition)


def _sign_in(driver: Any, server: ReferenceServer, token: str) -> None:
    driver.get(server.url + "/")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in button").click()
    _wait(driver, lambda d: d.find_element(By.ID, "workspace").is_displayed())


def _click_first_conversation(driver: Any) -> None:
    def click(d: Any) -> bool:
        items = d.find_elements(By.CSS_SELECTOR, "#conversation-list li")
        if not items:
            return False
        items[0].click()
        return True

    # The list is redrawn when it changes; a click on an element just replaced is retried.
    WebDriverWait(driver, 15, ignored_exceptions=(StaleElementReferenceException,)).until(click)


def _open_first_conversation(driver: Any) -> None:
    _click_first_conversation(driver)
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#detail .run"))


def _round_trip(server: ReferenceServer) -> str:
    with AppClient(server.app_id, token=server.token, base_url=server.url) as client:
        result = client.run_until_answer(query="北京天气怎么样？", tools=[get_current_weather])
    return result.conversation_id


def test_signing_in_shows_the_tool_round_trip_as_a_timeline(
    browser: Any, serve: Callable[[list[Any]], ReferenceServer], tmp_path: Path
) -> None:
    """After sign-in the conversation's runs show the query, the call, the output, the answer."""
    server = serve(ROUND_TRIP)
    _round_trip(server)
    _sign_in(browser, server, server.token)
    _open_first_conversation(browser)
    _wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#detail .run")) == 2)
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#conversation-list li.selected"))
    text = browser.find_element(By.ID, "detail").text
    assert "北京天气怎么样？" in text
    assert "get_current_weather" in text
    assert '"location": "北京"' in text
    assert "北京今天晴，最高25度。" in text
    shot = tmp_path / "inspector-round-trip.png"
    browser.save_screenshot(str(shot))
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000


def test_a_tool_output_holding_markup_is_shown_as_text(
    browser: Any, serve: Callable[[list[Any]], ReferenceServer]
) -> None:
    """An output with <script> and an onerror image runs nothing and reads as typed."""
    server = serve(ROUND_TRIP)
    _round_trip(server)
    _sign_in(browser, server, server.token)
    _open_first_conversation(browser)
    output = _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".tool-output .text"))
    assert XSS in output.text
    assert browser.execute_script("return window.__xss") is None
    assert not browser.find_elements(By.CSS_SELECTOR, "#detail img, #detail script")


def test_another_tokens_conversations_are_invisible(
    browser: Any, serve: Callable[[list[Any]], ReferenceServer]
) -> None:
    """A second token signs in to an empty list, though the first has a conversation."""
    server = serve(ROUND_TRIP)
    _round_trip(server)
    _sign_in(browser, server, OTHER_TOKEN)
    _wait(browser, lambda d: d.find_element(By.ID, "no-conversations").is_displayed())
    assert not browser.find_elements(By.CSS_SELECTOR, "#conversation-list li")


def test_a_wrong_token_is_told_so_and_kept_out(
    browser: Any, serve: Callable[[list[Any]], ReferenceServer]
) -> None:
    """A token the server does not accept returns to the sign-in form with a message."""
    server = serve([])
    browser.get(server.url + "/")
    browser.find_element(By.ID, "token").send_keys("not-a-token")
    browser.find_element(By.CSS_SELECTOR, "#sign-in button").click()
    message = _wait(browser, lambda d: d.find_element(By.ID, "sign-in-error"))
    _wait(browser, lambda d: message.is_displayed())
    assert "not accepted" in message.text
    assert browser.execute_script("return sessionStorage.length") == 0


def test_a_streaming_run_updates_live(
    browser: Any, serve: Callable[[list[Any]], ReferenceServer]
) -> None:
    """While the model is still writing, the page shows the run and its answer so far."""
    gate = threading.Event()
    server = serve([ModelReply(text="上海今天多云，傍晚有小雨。", gate=gate)])
    with AppClient(server.app_id, token=server.token, base_url=server.url) as client:
        conversation_id = client.create_conversation()
        stream = client.run(conversation_id, "上海天气？", stream=True)
        try:
            next(iter(stream))  # the first delta is out; the model is held
            _sign_in(browser, server, server.token)
            _click_first_conversation(browser)
            live = _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".live-answer"))
            assert live.text.startswith("上海")
            assert "running" in browser.find_element(By.CSS_SELECTOR, ".run.running").text
        finally:
            gate.set()
        stream.collect()
    _wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, ".run.running"))
    _wait(browser, lambda d: "上海今天多云，傍晚有小雨。" in d.find_element(By.ID, "detail").text)
