"""Inspect AI tasks that write real logs offline (mockllm model, fixed outputs), for the
measurements in docs/transcripts.md ("Logs written by Inspect itself"). Not part of the
package or the tests: run it in a separate virtual environment with inspect_ai installed:

    inspect eval tests/real_files/inspect_tasks.py@calls --log-dir logs
    inspect eval tests/real_files/inspect_tasks.py@limit --log-dir logs
    inspect eval tests/real_files/inspect_tasks.py@crash --log-dir logs

(add ``--log-format json`` for the older single-file log). Every output carries its token
usage, so mockllm never downloads a tokenizer: the run needs no network.
"""

# ruff: noqa
# mypy: ignore-errors
import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool


@tool
def add():
    async def execute(x: int, y: int):
        """Add two numbers.

        Args:
            x: first
            y: second
        """
        return x + y

    return execute


@tool
def boom():
    async def execute(q: str):
        """Fails.

        Args:
            q: anything
        """
        raise RuntimeError("no")

    return execute


@task
def calls():
    outputs = [
        ModelOutput.for_tool_call("mockllm/model", "add", {"x": 1, "y": 2}),
        ModelOutput.from_content("mockllm/model", "3"),
        ModelOutput.for_tool_call("mockllm/model", "add", {"x": 2, "y": 2}),
        ModelOutput.for_tool_call("mockllm/model", "nosuch", {"a": 1}),
        ModelOutput.from_content("mockllm/model", "4"),
    ]
    for o in outputs:
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return Task(
        dataset=[Sample(input="1+2?", target="3"), Sample(input="2+2?", target="4")],
        solver=[use_tools(add(), boom()), generate()],
        scorer=includes(),
        model=get_model("mockllm/model", custom_outputs=outputs),
    )


@tool
def slow():
    async def execute(q: str):
        """Slow.

        Args:
            q: anything
        """
        await anyio.sleep(60)
        return "late"

    return execute


@task
def limit():
    outputs = [ModelOutput.for_tool_call("mockllm/model", "slow", {"q": "x"})]
    for o in outputs:
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return Task(
        dataset=[Sample(input="go", target="late")],
        solver=[use_tools(slow()), generate()],
        scorer=includes(),
        time_limit=3,
        model=get_model("mockllm/model", custom_outputs=outputs),
    )


@task
def crash():
    outputs = [ModelOutput.for_tool_call("mockllm/model", "boom", {"q": "x"})]
    for o in outputs:
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return Task(
        dataset=[Sample(input="go", target="x")],
        solver=[use_tools(boom()), generate()],
        scorer=includes(),
        model=get_model("mockllm/model", custom_outputs=outputs),
    )
