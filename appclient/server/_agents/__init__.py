"""Who plans a run.

The agent interface, the rule, scripted and model agents, and the cloud components.
"""
