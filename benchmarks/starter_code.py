"""LeetCode-style starter code in other languages, made from a LiveCodeBench problem's Python starter.

LiveCodeBench gives a functional problem's signature in Python only (`def maxSum(self, nums: List[int], k: int) ->
int:`). To pose it in another language, its type hints are written in that language's terms (STARTERS below: the
language's own types, and its LeetCode skeleton). An `int` becomes the 64-bit type where a test's value of it, or of
the result, is beyond 32 bits. Hints other than int, float, bool, str and (nested) List/list of those (Optional,
TreeNode, Dict, ...) have no translation: the problem is not posed in that language.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

Hint = str | tuple[str, "Hint"]     # "int" | "long" | "float" | "bool" | "str" | ("list", element)
_SCALARS = {"int", "float", "bool", "str"}
_INT32 = 2**31


@dataclasses.dataclass(frozen=True)
class Starter:
    """How one language's starter code is written; `{type}`, `{name}`, `{params}`, `{ret}`, `{doc}` are filled."""

    types: Mapping[str, str]      # int, long, float, bool, str -> the language's type
    list_type: str                # a list of {type}
    param: str                    # a scalar parameter
    list_param: str               # a list parameter
    template: str                 # the whole skeleton
    doc_param: str = ""           # one parameter's line in {doc}


STARTERS: dict[str, Starter] = {
    "cpp": Starter(
        types={"int": "int", "long": "long long", "float": "double", "bool": "bool", "str": "string"},
        list_type="vector<{type}>", param="{type} {name}", list_param="{type}& {name}",
        template="class Solution {{\npublic:\n    {ret} {name}({params}) {{\n        \n    }}\n}};"),
    "java": Starter(
        types={"int": "int", "long": "long", "float": "double", "bool": "boolean", "str": "String"},
        list_type="{type}[]", param="{type} {name}", list_param="{type} {name}",
        template="class Solution {{\n    public {ret} {name}({params}) {{\n        \n    }}\n}}"),
    "javascript": Starter(
        types={"int": "number", "long": "number", "float": "number", "bool": "boolean", "str": "string"},
        list_type="{type}[]", param="{name}", list_param="{name}", doc_param=" * @param {{{type}}} {name}\n",
        template="/**\n{doc} * @return {{{ret}}}\n */\nvar {name} = function({params}) {{\n    \n}};"),
}


@dataclasses.dataclass(frozen=True)
class Signature:
    name: str
    params: tuple[tuple[str, Hint], ...]
    result: Hint


def python_signature(starter: str, function_name: str) -> Signature | None:
    """The function's parameters and result as hints, from LiveCodeBench's (bodiless) Python starter."""
    try:
        tree = ast.parse(starter.rstrip() + " ...\n")
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function_name:
            arguments = node.args.args[1:] if node.args.args and node.args.args[0].arg == "self" else node.args.args
            params = tuple((argument.arg, _hint(argument.annotation)) for argument in arguments)
            result = _hint(node.returns)
            if result is None or any(hint is None for _, hint in params):
                return None
            return Signature(function_name, params, result)
    return None


def _hint(node: ast.expr | None) -> Hint | None:
    if isinstance(node, ast.Name) and node.id in _SCALARS:
        return node.id
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in ("List", "list"):
        element = _hint(node.slice)
        return None if element is None else ("list", element)
    return None


def starter(language: str, signature: Signature, arguments: Iterable[list[Any]], results: Iterable[Any]) -> str | None:
    """The starter code in `language` (a table key), or None when there is no translation into it.
    `arguments` and `results` are the tests' values, which decide where an int must be 64 bits wide."""
    style = STARTERS.get(language)
    if style is None:
        return None
    arguments, results = list(arguments), list(results)
    params, docs = [], []
    for position, (name, hint) in enumerate(signature.params):
        widened = _widened(hint, [values[position] for values in arguments if position < len(values)])
        type_name = _type(style, widened)
        template = style.list_param if isinstance(widened, tuple) else style.param
        params.append(template.format(type=type_name, name=name))
        docs.append(style.doc_param.format(type=type_name, name=name))
    result = _type(style, _widened(signature.result, results))
    return style.template.format(ret=result, name=signature.name, params=", ".join(params), doc="".join(docs))


def _widened(hint: Hint, values: list[Any]) -> Hint:
    """`hint` with int made long where one of the values is beyond 32 bits."""
    if isinstance(hint, tuple):
        return ("list", _widened(hint[1], [item for value in values if isinstance(value, list) for item in value]))
    wide = any(isinstance(v, int) and not isinstance(v, bool) and not -_INT32 <= v < _INT32 for v in values)
    return "long" if hint == "int" and wide else hint


def _type(style: Starter, hint: Hint) -> str:
    if isinstance(hint, tuple):
        return style.list_type.format(type=_type(style, hint[1]))
    return style.types[hint]
