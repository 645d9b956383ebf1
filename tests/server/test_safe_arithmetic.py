from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from appclient.server._agents._safe_arithmetic import (
    ExpressionError,
    evaluate_arithmetic,
    format_number,
    normalize_expression,
)
from appclient.server._settings import CALCULATOR_MAX_EXPRESSION_CHARS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 + 2", 3),
        ("(3 + 4) * 2", 14),
        ("7 / 2", 3.5),
        ("7 // 2", 3),
        ("7 % 4", 3),
        ("2 ** 10", 1024),
        ("-3 + 1", -2),
        ("+5", 5),
        ("-(2 + 3)", -5),
        ("2 ** -1", 0.5),
        ("1.5 * 4", 6.0),
        ("((1))", 1),
    ],
)
def test_evaluates_the_allowed_operators(text, expected):
    """Numbers, + - * / // % **, unary signs and parentheses evaluate as in Python."""
    assert evaluate_arithmetic(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3×4", 12), ("8÷2", 4), ("（1+2）*3", 9), ("2^10", 1024), ("1 + 1 =", 2), ("2*3=?", 6)],
)
def test_accepts_written_forms(text, expected):
    """×, ÷, full-width parentheses, ^ and a trailing = or =? are understood."""
    assert evaluate_arithmetic(text) == expected


def test_normalize_expression_rewrites_written_operators():
    """The normalised text uses Python operators only."""
    assert normalize_expression("（2^3）× 4 ÷ 2 =") == "(2**3)* 4 / 2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("__import__('os').system('id')", "function call"),
        ("abs(-1)", "function call"),
        ("x + 1", "the name 'x'"),
        ("'a' * 3", "is not a number"),
        ("True + 1", "is not a number"),
        ("1 < 2", "comparison"),
        ("3 & 1", "'&'"),
        ("[1, 2]", "not allowed"),
        ("1 +", "not a complete arithmetic expression"),
        ("", "empty"),
        ("1 / 0", "division by zero"),
        ("1 % 0", "division by zero"),
        ("0 ** -1", "negative power"),
        ("(-8) ** 0.5", "fractional power"),
    ],
)
def test_refuses_what_is_not_plain_arithmetic(text, message):
    """Names, calls, strings, comparisons, bit operators and bad maths get a clear error."""
    with pytest.raises(ExpressionError, match=message):
        evaluate_arithmetic(text)


def test_refuses_huge_exponents():
    """An exponent above the limit is refused before anything is computed."""
    with pytest.raises(ExpressionError, match="exponents above"):
        evaluate_arithmetic("2 ** 100000")


def test_refuses_results_with_too_many_digits():
    """9 ** 999 ** 1 style growth is cut off by the digit limit."""
    with pytest.raises(ExpressionError, match="digits"):
        evaluate_arithmetic("99 ** 999")


def test_refuses_tower_of_powers_quickly():
    """A power tower fails on the exponent limit instead of running forever."""
    with pytest.raises(ExpressionError):
        evaluate_arithmetic("9 ** 9 ** 9 ** 9")


def test_refuses_float_overflow():
    """A float result that overflows is an error, not inf."""
    with pytest.raises(ExpressionError, match="too large"):
        evaluate_arithmetic("1e308 * 10")


def test_refuses_long_expressions():
    """Text over the length limit is refused."""
    with pytest.raises(ExpressionError, match="longer than"):
        evaluate_arithmetic("1+" * CALCULATOR_MAX_EXPRESSION_CHARS + "1")


@pytest.mark.parametrize(
    ("value", "text"), [(14, "14"), (3.0, "3"), (3.5, "3.5"), (1 / 3, "0.333333333333")]
)
def test_format_number_is_short(value, text):
    """Integers print exactly, integral floats without .0, others to 12 digits."""
    assert format_number(value) == text


@given(st.text(max_size=40))
def test_any_text_evaluates_or_raises_expression_error(text):
    """Arbitrary text gives a number or an ExpressionError with a message, nothing else."""
    outcome: object
    try:
        outcome = evaluate_arithmetic(text)
    except ExpressionError as exc:
        outcome = str(exc)
    assert isinstance(outcome, (int, float)) or (isinstance(outcome, str) and outcome)


@given(st.integers(-1000, 1000), st.integers(-1000, 1000), st.sampled_from("+-*"))
def test_integer_arithmetic_matches_python(left, right, operator):
    """Integer + - * agree with Python's own arithmetic."""
    expected = {"+": left + right, "-": left - right, "*": left * right}[operator]
    assert evaluate_arithmetic(f"({left}) {operator} ({right})") == expected
