"""Code extraction: Multi-LCB's first block after </think> without the placeholder, LiveCodeBench's
last block, and the completion itself."""

from __future__ import annotations

import pytest

from reward_server.graders.extraction import ExtractionStyle, extract_code

FIRST, LAST, NONE = ExtractionStyle.FIRST_BLOCK, ExtractionStyle.LAST_BLOCK, ExtractionStyle.NONE

TWO_BLOCKS = "Draft:\n```python\nprint(1)\n```\nFinal:\n```python\nprint(2)\n```\nDone."


def test_none_returns_the_completion_unchanged() -> None:
    for completion in ["", "print(1)", TWO_BLOCKS, "  x\r\n"]:
        assert extract_code(completion, NONE) == completion


@pytest.mark.parametrize(
    ("completion", "first", "last"),
    [
        (TWO_BLOCKS, "print(1)", "print(2)"),
        ("```\na\nb\n```", "a\nb", "a\nb"),
        ("```cpp\nint main() {}\n```", "int main() {}", "int main() {}"),
        ("text ```rust\nfn main() {}\n``` tail", "fn main() {}", "fn main() {}"),
        ("    ```go\n    package main\n    ```", "    package main", "    package main"),
        ("```\n```", "", ""),
        ("```py\n\n  x = 1  \n\n```", "\n  x = 1  \n", "\n  x = 1  \n"),
        ("```\r\nx = 1\r\n```\r\n", "x = 1\r", "x = 1\r"),
        # odd fence counts: LiveCodeBench takes whatever lies between the last two fence lines
        ("```\na\n```\nprose\n```\nb", "a", "prose"),
        # no code
        ("print(1)", None, None),
        ("```python\nprint(1)", None, None),
        ("", None, None),
    ],
)
def test_fenced_blocks(completion: str, first: str | None, last: str | None) -> None:
    assert extract_code(completion, FIRST) == first
    assert extract_code(completion, LAST) == last


def test_first_block_reads_only_after_the_last_think_end() -> None:
    completion = (
        "<think>\nTry:\n```python\nprint('draft')\n```\n</think>\nHmm</think>"
        "\n```python\nprint('answer')\n```\n```python\nprint('extra')\n```"
    )
    assert extract_code(completion, FIRST) == "print('answer')"
    # LiveCodeBench reads the whole completion and takes its last block.
    assert extract_code(completion, LAST) == "print('extra')"


def test_first_block_with_code_only_inside_thinking_is_no_code() -> None:
    completion = "<think>\n```python\nprint(1)\n```\n</think>\nThe answer is above."
    assert extract_code(completion, FIRST) is None
    assert extract_code(completion, LAST) == "print(1)"


@pytest.mark.parametrize(
    ("block", "code"),
    [
        ("# YOUR CODE HERE\nprint(1)", "print(1)"),
        ("// YOUR CODE HERE\nint main() { return 0; }", "int main() { return 0; }"),
        ("#include <cstdio>\n    // YOUR CODE HERE   \nint main() {}", "#include <cstdio>\nint main() {}"),
        ("# YOUR CODE HERE", ""),
        ("x = 1  # YOUR CODE HERE", "x = 1  # YOUR CODE HERE"),
        ("# your code here\nprint(1)", "# your code here\nprint(1)"),
        ("# YOUR CODE HERE!\nprint(1)", "# YOUR CODE HERE!\nprint(1)"),
    ],
)
def test_first_block_drops_the_placeholder_line(block: str, code: str) -> None:
    completion = f"Here it is:\n```cpp\n{block}\n```\n"
    assert extract_code(completion, FIRST) == code
    # LiveCodeBench's prompt has no such placeholder to echo; it keeps the line.
    assert extract_code(completion, LAST) == block
