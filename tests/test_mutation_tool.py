"""tests/mutation.py, the command that prints each module's kill rate: what
it counts, when a module passes, and which survivors it tries again."""

from __future__ import annotations

import json

import mutation
import pytest

SPEC = {"mutate": ["heartcompass/memory/relevance.py"], "tests": ["tests/test_relevance_promises.py"]}


def _meta(root, codes: dict, hashes: dict) -> None:
    folder = root / "mutants" / "heartcompass" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "relevance.py.meta").write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": hashes}),
                                              "utf-8")
    (folder / "selection.py.meta").write_text(json.dumps({  # another module's file: not counted here
        "exit_code_by_key": {"heartcompass.memory.selection.x_choose__mutmut_1": 0}}), "utf-8")


def test_the_rate_is_killed_over_what_was_tried_less_the_equivalents():
    codes = {"m.f.x_a__mutmut_1": 1, "m.f.x_a__mutmut_2": 0, "m.f.x_a__mutmut_3": 0, "m.f.x_a__mutmut_4": 33,
             "m.f.x_a__mutmut_5": 34, "m.f.x_a__mutmut_6": -24}
    whole = mutation.tally(codes, {"m.f.x_a__mutmut_3": "why"})["m.f"]
    assert (whole.killed, whole.equivalent, whole.total) == (2, 1, 5)  # 34 (no mutate) is no mutant
    assert whole.survivors == ["m.f.x_a__mutmut_2"] and whole.untested == ["m.f.x_a__mutmut_4"]
    assert whole.rate == pytest.approx(50.0)


def test_a_module_passes_only_when_every_mutant_was_tried_and_nine_in_ten_killed():
    done = mutation.Tally(killed=9, total=10)
    assert mutation.passed(done)
    assert not mutation.passed(mutation.Tally(killed=8, total=10))
    assert not mutation.passed(mutation.Tally(killed=9, total=20, untried=10))  # stopped early: 100% of 9 tried
    assert not mutation.passed(mutation.Tally())  # nothing tried proves nothing
    assert mutation.Tally().rate == 0.0


def test_a_part_is_run_with_its_module_not_on_its_own():
    modules = {"store": {"parts": ["store/git", "store/people"]}, "store/git": {}, "store/people": {}, "formats": {}}
    assert [m for m in modules if not mutation.part_of(m, modules)] == ["store", "formats"]


def test_results_and_hashes_are_read_for_the_modules_files_only(tmp_path):
    _meta(tmp_path, {"heartcompass.memory.relevance.x_scores__mutmut_1": 0,
                     "heartcompass.memory.relevance.xǁIndexǁrun__mutmut_2": None},
          {"x_scores": "aa", "xǁIndexǁrun": "bb"})
    assert mutation.results(tmp_path, SPEC, []) == {"heartcompass.memory.relevance.x_scores__mutmut_1": 0,
                                                    "heartcompass.memory.relevance.xǁIndexǁrun__mutmut_2": None}
    assert mutation.function_hashes(tmp_path, SPEC) == {"heartcompass.memory.relevance.x_scores__mutmut_1": "aa",
                                                        "heartcompass.memory.relevance.xǁIndexǁrun__mutmut_2": "bb"}
    assert list(mutation.results(tmp_path, SPEC, mutation.name_patterns(["relevance"]))) == [
        "heartcompass.memory.relevance.x_scores__mutmut_1", "heartcompass.memory.relevance.xǁIndexǁrun__mutmut_2"]
    assert mutation.results(tmp_path, SPEC, mutation.name_patterns(["selection"])) == {}


def test_only_survivors_of_unchanged_functions_are_tried_again():
    """A changed function's mutants were just tested afresh by mutmut, and
    their old names now mean other mutants: trying them again wastes a run."""
    earlier = {"f.x_same__mutmut_1": 0, "f.x_changed__mutmut_1": 0, "f.x_same__mutmut_2": 1,
               "f.x_same__mutmut_3": None, "f.x_same__mutmut_4": 0, "f.x_gone__mutmut_1": 0}
    before = {"f.x_same__mutmut_1": "a", "f.x_changed__mutmut_1": "b", "f.x_same__mutmut_2": "a",
              "f.x_same__mutmut_3": "a", "f.x_same__mutmut_4": "a", "f.x_gone__mutmut_1": "c"}
    after = {**before, "f.x_changed__mutmut_1": "B"}
    del after["f.x_gone__mutmut_1"]
    assert mutation.to_try_again(earlier, before, after, {"f.x_same__mutmut_4": "equivalent"}) == [
        "f.x_same__mutmut_1"]


@pytest.mark.parametrize("module, package", [("memory/proposal", "memory/proposal"), ("gateway", "gateway"),
                                             ("intake", "intake"), ("store", "store"), ("formats", "formats")])
def test_every_file_of_a_module_is_mutated_by_exactly_one_of_its_parts(module, package):
    """A file no part lists would never be mutated, and its module's rate would say nothing of it."""
    import fnmatch

    modules = mutation.modules()
    parts = modules[module].get("parts", [module])
    files = sorted(p.relative_to(mutation.ROOT).as_posix() for p in (mutation.ROOT / "heartcompass" / package).glob("*.py"))
    assert files
    for name in files:
        owners = [part for part in parts if any(fnmatch.fnmatch(name, g) for g in modules[part]["mutate"])]
        assert len(owners) == 1, f"{name} is mutated by {owners or 'no part'} of {module}"


def test_a_mutant_that_makes_a_test_wait_forever_is_stopped_in_half_a_minute(tmp_path, monkeypatch):
    """A staged part keeps the suite's settings but pytest-timeout's limit: a
    hanging mutant costs 30 s, not the suite's 300, and mutmut's own settings
    (whose change would make it forget its results) are the repository's."""
    import shutil

    shutil.copy(mutation.ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_relevance_promises.py").write_text("", "utf-8")
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    where = mutation.stage("memory/relevance", SPEC, fresh=False)
    staged = mutation.tomllib.loads((where / "pyproject.toml").read_text("utf-8"))
    ours = mutation.tomllib.loads((tmp_path / "pyproject.toml").read_text("utf-8"))
    assert staged["tool"]["pytest"]["ini_options"]["timeout"] == 30 != ours["tool"]["pytest"]["ini_options"]["timeout"]
    assert staged["tool"]["mutmut"]["pytest_add_cli_args_test_selection"] == ["tests/test_relevance_promises.py"]
    assert staged["tool"]["mutmut"]["only_mutate"] == SPEC["mutate"]
    assert staged["tool"]["mutmut"].get("pytest_add_cli_args") == ours["tool"]["mutmut"].get("pytest_add_cli_args")
    assert (where / "tests").resolve() == tmp_path / "tests"


def test_a_new_machine_starts_from_the_saved_verdicts_not_from_nothing(tmp_path, monkeypatch):
    """The promise: results survive the machine (mutants/ is not in git), and a
    verdict is kept only with the hash of the function it was found on."""
    monkeypatch.setattr(mutation, "SAVED", tmp_path / "saved")
    old = tmp_path / "old"
    _meta(old, {"heartcompass.memory.relevance.x_scores__mutmut_1": 0,
                "heartcompass.memory.relevance.x_scores__mutmut_2": 1,
                "heartcompass.memory.relevance.xǁIndexǁrun__mutmut_1": None},
          {"x_scores": "aa", "xǁIndexǁrun": "bb"})
    mutation.save("memory/relevance", old, SPEC)
    saved = json.loads((tmp_path / "saved" / "memory_relevance.json").read_text("utf-8"))
    assert list(saved) == ["heartcompass/memory/relevance.py"]  # the other module's file is not this one's
    new = tmp_path / "new"
    mutation.seed("memory/relevance", new)
    assert mutation.results(new, SPEC, []) == {"heartcompass.memory.relevance.x_scores__mutmut_1": 0,
                                               "heartcompass.memory.relevance.x_scores__mutmut_2": 1}  # untried: not kept
    assert mutation.function_hashes(new, SPEC)["heartcompass.memory.relevance.x_scores__mutmut_1"] == "aa"
    meta = json.loads((new / "mutants" / "heartcompass" / "memory" / "relevance.py.meta").read_text("utf-8"))
    assert {"durations_by_key", "estimated_durations_by_key", "type_check_error_by_key"} <= set(meta)  # mutmut's keys
    # a machine's own results are newer than the saved ones: never overwritten
    _meta(new, {"heartcompass.memory.relevance.x_scores__mutmut_1": 1}, {"x_scores": "cc"})
    mutation.seed("memory/relevance", new)
    assert mutation.results(new, SPEC, []) == {"heartcompass.memory.relevance.x_scores__mutmut_1": 1}
    mutation.seed("memory/other", tmp_path / "none")  # nothing saved: nothing written
    assert not (tmp_path / "none").exists()
