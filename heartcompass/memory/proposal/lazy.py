"""The proposal machinery's modules, imported on first use. Importing
model.py builds pydantic classes (a fifth of a second): a caller that may
have nothing to propose (an idle `garden` over everyone) reaches them here
and pays only when someone has new entries."""

from __future__ import annotations

from types import ModuleType


def model() -> ModuleType:
    from heartcompass.memory.proposal import model as module

    return module


def workbench() -> ModuleType:
    from heartcompass.memory.proposal import workbench as module

    return module


def propose() -> ModuleType:
    from heartcompass.memory.proposal import propose as module

    return module
