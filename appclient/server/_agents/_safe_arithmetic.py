"""Evaluate arithmetic text safely, without ``eval`` (pure).

The text is parsed with :mod:`ast` and only numbers, ``+ - * / // % **``, unary ``+``/``-``
and parentheses are evaluated; anything else (names, calls, comparisons, strings) is refused.
Limits on the text's length, on exponents and on the size of results keep a hostile
expression from eating the server's CPU or memory. Written forms are accepted too: ``×``/``÷``,
full-width parentheses and operators, ``^`` for a power, and a trailing ``=`` or ``=?``.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from .._settings import (
    CALCULATOR_MAX_DIGITS,
    CALCULATOR_MAX_EXPONENT,
    CALCULATOR_MAX_EXPRESSION_CHARS,
)

Number = int | float

_WRITTEN_FORMS = str.maketrans("×✕·÷（）＋－−＊／％＾＝？，", "***/()+--*/%^=?,")
_SYNTAX = {
    ast.Call: "a function call",
    ast.Compare: "a comparison",
    ast.UnaryOp: "that unary operator",
}


class ExpressionError(ValueError):
    """The text is not an arithmetic expression this evaluator accepts, or breaks a limit."""


def normalize_expression(text: str) -> str:
    """Return ``text`` in Python operator syntax: ``×`` -> ``*``, ``^`` -> ``**``, no ``=``."""
    result = text.translate(_WRITTEN_FORMS).strip()
    result = result.rstrip("?").rstrip().rstrip("=").strip()
    return result.replace("^", "**")


def _check_size(value: Number) -> Number:
    # About the number of decimal digits, without converting a huge int to text.
    if isinstance(value, int) and int(value.bit_length() * 0.30103) + 1 > CALCULATOR_MAX_DIGITS:
        raise ExpressionError(f"the result has more than {CALCULATOR_MAX_DIGITS} digits")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError("the result is too large")
    return value


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > CALCULATOR_MAX_EXPONENT:
        raise ExpressionError(f"exponents above {CALCULATOR_MAX_EXPONENT} are not evaluated")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        # Estimate the digits first so 9 ** 999 ** ... never gets computed at all.
        estimated = exponent * math.log10(abs(base)) if abs(base) > 1 else 0.0
        if estimated > CALCULATOR_MAX_DIGITS:
            raise ExpressionError(f"the result has more than {CALCULATOR_MAX_DIGITS} digits")
    if base == 0 and exponent < 0:
        raise ExpressionError("zero cannot be raised to a negative power")
    result = base**exponent  # an OverflowError is reported by _evaluate
    if isinstance(result, complex):
        raise ExpressionError("a negative number cannot be raised to a fractional power")
    return result


_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}


def _evaluate(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ExpressionError(f"{value!r} is not a number")
        return _check_size(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _evaluate(node.operand)
        return operand if isinstance(node.op, ast.UAdd) else -operand
    if isinstance(node, ast.BinOp):
        function = _BINARY.get(type(node.op))
        if function is None:
            symbol = ast.unparse(ast.BinOp(ast.Name("a"), node.op, ast.Name("b")))[2:-2]
            raise ExpressionError(f"the operator {symbol!r} is not supported")
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise ExpressionError("division by zero")
        try:
            return _check_size(function(left, right))
        except OverflowError as exc:
            raise ExpressionError("the result is too large") from exc
    what = f"the name {node.id!r}" if isinstance(node, ast.Name) else None
    what = what or _SYNTAX.get(type(node), f"{type(node).__name__} syntax")
    raise ExpressionError(f"{what} is not allowed; use numbers and + - * / // % **")


def evaluate_arithmetic(text: str) -> Number:
    """The value of ``(3 + 4) * 2`` or ``2^10``: an ``int`` while every step stays integral.

    Written forms are normalised first; :class:`ExpressionError` says what is wrong otherwise.
    """
    expression = normalize_expression(text)
    if not expression:
        raise ExpressionError("the expression is empty")
    if len(expression) > CALCULATOR_MAX_EXPRESSION_CHARS:
        raise ExpressionError(
            f"the expression is longer than {CALCULATOR_MAX_EXPRESSION_CHARS} characters"
        )
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"{expression!r} is not a complete arithmetic expression") from exc
    except ValueError as exc:  # e.g. a NUL byte in the text
        raise ExpressionError(f"{expression!r} cannot be parsed: {exc}") from exc
    try:
        return _evaluate(tree)
    except RecursionError as exc:
        raise ExpressionError("the expression is nested too deeply") from exc


def format_number(value: Number) -> str:
    """Return ``value`` as short text: integers exactly, floats to 12 significant digits."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.12g}"
