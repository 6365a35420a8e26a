# Stand-in for the upstream snippets file (written for these tests): only
# the marker layout matters to the loader.
import pytest


def test_missing_model_arg():
    # --8<-- [start:missing_model_arg]
    from google.adk.agents import LlmAgent

    agent = LlmAgent(
        name="assistant",
        instruction="Help the user.",
    )
    # --8<-- [end:missing_model_arg]
    assert agent.name == "assistant"


def test_raw_function_tool():
    # --8<-- [start:raw_function_tool]
    def calculate_tax(amount: float) -> float:
        return amount * 0.2

    from google.adk.agents import LlmAgent
    agent = LlmAgent(name="tax", model="gemini-2.5-flash", tools=[calculate_tax])
    # --8<-- [end:raw_function_tool]
    assert agent.tools
