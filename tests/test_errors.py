"""The exception tree: status mapping, messages, and secret redaction."""

from __future__ import annotations

import pickle
import re

import pytest

import appclient
import appclient.errors
from appclient._core._errors import redact, redact_mapping, status_error_class


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, appclient.errors.BadRequestError),
        (401, appclient.AuthenticationError),
        (403, appclient.errors.PermissionDeniedError),
        (404, appclient.errors.NotFoundError),
        (409, appclient.errors.ConflictError),
        (413, appclient.errors.PayloadTooLargeError),
        (422, appclient.errors.UnprocessableEntityError),
        (429, appclient.RateLimitError),
        (500, appclient.errors.ServerError),
        (503, appclient.errors.ServerError),
        (418, appclient.APIStatusError),
    ],
)
def test_status_maps_to_its_class(status: int, cls: type) -> None:
    """Each HTTP error status has its own exception class."""
    assert status_error_class(status) is cls


def test_status_error_message_names_everything_useful() -> None:
    """The message carries status, code, message and request id."""
    error = appclient.errors.BadRequestError(
        status_code=400, code="InvalidParameter", message="query", request_id="r-1"
    )
    assert str(error) == "HTTP 400: InvalidParameter: query (request_id=r-1)"


def test_authentication_error_says_how_to_fix_the_token() -> None:
    """A 401's message points at the token setting, keeping the server's own words."""
    error = appclient.AuthenticationError(
        status_code=401, code="Unauthorized", message="bad token", request_id="r-1"
    )
    assert str(error).startswith("HTTP 401: Unauthorized: bad token (request_id=r-1)")
    assert "token=" in str(error)
    assert "$APPBUILDER_TOKEN" in str(error)
    assert error.message == "bad token"


def test_every_error_is_an_appclient_error() -> None:
    """Every exported exception class derives from AppClientError."""
    errors = [
        getattr(appclient, name)
        for name in appclient.__all__
        if isinstance(getattr(appclient, name), type)
        and issubclass(getattr(appclient, name), Exception)
    ]
    assert errors
    assert all(issubclass(cls, appclient.AppClientError) for cls in errors)


def test_caller_mistakes_are_value_errors() -> None:
    """Invalid input errors can be caught as ValueError."""
    assert issubclass(appclient.InvalidRequestError, ValueError)
    assert issubclass(appclient.ManifestError, ValueError)
    assert issubclass(appclient.errors.ToolArgumentsError, ValueError)


def test_stream_interruption_is_a_run_error() -> None:
    """An interrupted stream can be handled as a failed run."""
    assert issubclass(appclient.errors.StreamInterruptedError, appclient.RunError)


def test_run_error_message() -> None:
    """RunError names code, message and request id."""
    error = appclient.RunError("quota", code="7", request_id="r")
    assert str(error) == "run failed: 7: quota (request_id=r)"


@pytest.mark.parametrize(
    "error",
    [
        appclient.errors.ServerError(status_code=503, code="Busy", message="later", request_id="r"),
        appclient.RunError("quota", code="7", request_id="r", conversation_id="c"),
        appclient.errors.ToolArgumentsError("bad", tool_name="f", problems=[("x", "missing")]),
        appclient.MaxRoundsExceededError("too many", max_rounds=3),
    ],
    ids=lambda error: type(error).__name__,
)
def test_errors_survive_pickling(error: appclient.AppClientError) -> None:
    """An error crosses process boundaries (multiprocessing) with its message and fields."""
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes, just made
    assert (type(copy), str(copy), vars(copy)) == (type(error), str(error), vars(error))


def test_redact_hides_every_secret_longest_first() -> None:
    """Overlapping secrets are hidden completely."""
    assert redact("key=abc123 and abc", ["abc", "abc123"]) == "key=*** and ***"


def test_redact_leaves_words_that_merely_contain_a_short_secret() -> None:
    """A short secret is hidden where it stands alone, not inside longer words."""
    text = "InvalidParameter: token t rejected (Bearer t)"
    assert redact(text, ["t"]) == "InvalidParameter: token *** rejected (Bearer ***)"


def test_redact_hides_a_long_secret_even_inside_a_word() -> None:
    """A secret of eight or more characters is hidden wherever it occurs."""
    assert redact("xxsecret-keyxx", ["secret-key"]) == "xx***xx"


def test_redact_ignores_empty_secrets() -> None:
    """An empty secret does not blank the text."""
    assert redact("text", [""]) == "text"


def test_redact_mapping_is_case_insensitive() -> None:
    """Header-like keys are matched without regard to case."""
    assert redact_mapping({"Authorization": "Bearer x", "A": 1}, ["authorization"]) == {
        "Authorization": "***",
        "A": 1,
    }


def test_the_drawn_error_tree_is_the_class_tree() -> None:
    """appclient.errors draws every exception once, each under its real base class."""
    drawn: dict[str, str] = {}
    parents = ["AppClientError"]
    for line in (appclient.errors.__doc__ or "").splitlines():
        match = re.match(r"^\s*((?:│   |    )*)[├└]── (\w+)", line)
        if match:
            depth = len(match.group(1)) // 4 + 1
            parents[depth:] = [match.group(2)]
            drawn[match.group(2)] = parents[depth - 1]
    exported = {name for name in appclient.errors.__all__ if name != "AppClientError"}
    assert set(drawn) == exported
    for name, parent in drawn.items():
        cls = getattr(appclient.errors, name)
        assert parent in {base.__name__ for base in cls.__mro__[1:]}, (name, parent)
