"""Mutation testing, one module at a time: `python tests/mutation.py [MODULE ...]`.

Runs mutmut on each module named in pyproject.toml's [tool.mutation.modules]
(all of them when none is named) with only the tests listed for it, and
prints the kill rate per module: killed / (total - equivalent). A timeout
counts as killed (the tests noticed); a mutant no listed test reaches counts
as not killed. tests/mutation_equivalent.toml names the equivalent mutants,
each with the reason it changes nothing a test could see.

A big module is a list of parts (`parts = [...]`), each a module of its own
files and fast tests, run in turn (or alone, by name) and reported as one sum.
A run stopped before every mutant was tried is not a pass.

Each module runs in mutants/<module>/ (ignored by git), so its results are
kept between runs: the next run tests only what changed, then tries the
previous survivors again against the current tests. --fresh starts over.
Each run also writes its verdicts and function hashes to
tests/mutation_results/ (kept in git): on a new machine a module starts
from them, and mutmut tests afresh only the functions that changed since.
Not named test_*: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import fnmatch
import glob
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomlkit

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = ROOT / "tests" / "mutation_equivalent.toml"
SAVED = ROOT / "tests" / "mutation_results"
TARGET = 90.0
# pytest-timeout's limit for a test run against a mutant: a listed test takes seconds, so a mutant that makes one
# wait forever (a stop never set, a lock never released) is caught in this long, not in the suite's 300 s. mutmut's
# own limit is of CPU time, which a wait does not spend.
MUTANT_TEST_TIMEOUT = 30
# What mutmut's staging copy needs beside the package (the shipped folders, found by resources.py).
LINKED = ("heartcompass", "tests", "workspace_template", "prompts", "benchmarks")
KILLED = {1, 3, 36, 37, 24, -24, 152, 255}  # mutmut's exit codes for killed, timeout, caught by type check
NOT_TRIED = {None}
SKIPPED = {34}  # `# pragma: no mutate`: not a mutant at all


@dataclass
class Tally:
    killed: int = 0
    equivalent: int = 0
    total: int = 0
    survivors: list[str] = field(default_factory=list)
    untested: list[str] = field(default_factory=list)  # no listed test reaches the function
    untried: int = 0  # a run stopped before it reached them

    @property
    def counted(self) -> int:
        return self.total - self.equivalent - self.untried

    @property
    def rate(self) -> float:
        counted = self.counted
        return 100.0 * self.killed / counted if counted else 0.0  # nothing tried proves nothing

    def add(self, other: "Tally") -> None:
        self.killed += other.killed
        self.equivalent += other.equivalent
        self.total += other.total
        self.survivors += other.survivors
        self.untested += other.untested
        self.untried += other.untried


def modules() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    return config["tool"]["mutation"]["modules"]


def equivalents() -> dict[str, str]:
    if not EQUIVALENTS.exists():
        return {}
    return {name: str(reason) for name, reason in tomllib.loads(EQUIVALENTS.read_text("utf-8")).items()}


def staging_dir(module: str) -> Path:
    return ROOT / "mutants" / module.replace("/", "_")


def test_files(spec: dict) -> list[str]:
    found = sorted({path for pattern in spec["tests"] for path in glob.glob(pattern, root_dir=ROOT)})
    if not found:
        raise SystemExit(f"none of the tests listed for this module exist: {spec['tests']}")
    return found


def stage(module: str, spec: dict, fresh: bool) -> Path:
    """A folder where mutmut sees the repository through links and a
    pyproject.toml narrowed to this module and its tests."""
    where = staging_dir(module)
    if fresh and where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        link = where / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name, target_is_directory=True)
    config = tomlkit.parse((ROOT / "pyproject.toml").read_text("utf-8"))
    config["tool"]["mutmut"]["only_mutate"] = spec["mutate"]
    config["tool"]["mutmut"]["pytest_add_cli_args_test_selection"] = test_files(spec)
    # here, not in mutmut's pytest_add_cli_args: a change there makes mutmut forget every result
    config["tool"]["pytest"]["ini_options"]["timeout"] = MUTANT_TEST_TIMEOUT
    text = tomlkit.dumps(config)
    target = where / "pyproject.toml"
    if not target.exists() or target.read_text("utf-8") != text:  # an unchanged file keeps mutmut's cache
        target.write_text(text, "utf-8")
    return where


def saved_file(module: str) -> Path:
    return SAVED / (module.replace("/", "_") + ".json")


def save(module: str, where: Path, spec: dict) -> None:
    """This module's verdicts and its functions' hashes, for the next machine
    (mutmut's own results stay in mutants/, which a new machine has not)."""
    kept: dict[str, dict] = {}
    for source, meta in _meta_files(where, spec):
        data = json.loads(meta.read_text("utf-8"))
        codes: dict[str, dict[str, int]] = {}
        for name, code in data["exit_code_by_key"].items():
            if code is not None:  # untried: nothing to keep
                function, _, number = name.partition("__mutmut_")
                codes.setdefault(function, {})[number] = code
        kept[source] = {"hashes": data.get("hash_by_function_name", {}), "codes": codes}
    if not kept:
        return
    target = saved_file(module)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(kept, indent=1, sort_keys=True, ensure_ascii=False) + "\n", "utf-8")
    temporary.replace(target)


def seed(module: str, where: Path) -> None:
    """A machine without this module's results starts from the saved ones:
    mutmut keeps a verdict where the function's hash is unchanged and tests
    the rest afresh."""
    target = saved_file(module)
    if not target.exists():
        return
    for source, kept in json.loads(target.read_text("utf-8")).items():
        meta = where / "mutants" / (source + ".meta")
        if meta.exists():  # this machine's own results are newer
            continue
        codes = {f"{function}__mutmut_{number}": code
                 for function, numbers in kept["codes"].items() for number, code in numbers.items()}
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": kept["hashes"],
                                    "type_check_error_by_key": {}, "durations_by_key": {},
                                    "estimated_durations_by_key": {}}), "utf-8")


def results(where: Path, spec: dict, only: list[str]) -> dict[str, int | None]:
    """Each mutant's exit code, from mutmut's .meta files, for this module's
    files only (and only the mutants `only` names, when it names some)."""
    codes = {name: code for name, (code, _) in _metas(where, spec).items()}
    return {name: code for name, code in codes.items() if not only or any(fnmatch.fnmatch(name, o) for o in only)}


def function_hashes(where: Path, spec: dict) -> dict[str, str | None]:
    """Each mutant's function, by its hash: a function that changed is
    mutated and tested afresh by mutmut (its mutants renumbered)."""
    return {name: digest for name, (_, digest) in _metas(where, spec).items()}


def _metas(where: Path, spec: dict) -> dict[str, tuple[int | None, str | None]]:
    found: dict[str, tuple[int | None, str | None]] = {}
    for _, meta in _meta_files(where, spec):
        data = json.loads(meta.read_text("utf-8"))
        digests = data.get("hash_by_function_name", {})
        for name, code in data["exit_code_by_key"].items():
            function = name.partition("__mutmut_")[0].rsplit(".", 1)[-1]
            found[name] = (code, digests.get(function))
    return found


def _meta_files(where: Path, spec: dict) -> list[tuple[str, Path]]:
    """(source file, mutmut's .meta of it) for this module's files."""
    found = []
    for meta in sorted((where / "mutants").glob("heartcompass/**/*.py.meta")):
        source = meta.relative_to(where / "mutants").as_posix().removesuffix(".meta")
        if any(fnmatch.fnmatch(source, pattern) for pattern in spec["mutate"]):
            found.append((source, meta))
    return found


def name_patterns(only: list[str]) -> list[str]:
    """--only numbers is every mutant of a numbers module; a pattern with a * is taken as it is."""
    return [o if "*" in o else f"*.{o}.*" for o in only]


def mutmut(where: Path, jobs: int, names: list[str]) -> None:
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *names]
    done = subprocess.run(command, cwd=where)
    if done.returncode != 0:
        raise SystemExit(f"mutmut failed in {where} (exit {done.returncode}); its output is above")


def tally(codes: dict[str, int | None], known: dict[str, str]) -> dict[str, Tally]:
    """Per source file (heartcompass.formats.events ...)."""
    files: dict[str, Tally] = {}
    for name, code in sorted(codes.items()):
        if code in SKIPPED:
            continue
        one = files.setdefault(name.partition("__mutmut_")[0].rsplit(".", 1)[0], Tally())
        one.total += 1
        if code in KILLED:
            one.killed += 1
        elif code in NOT_TRIED:
            one.untried += 1
        elif name in known:
            one.equivalent += 1
        elif code in (5, 33):
            one.untested.append(name)
        else:
            one.survivors.append(name)
    return files


def report(module: str, files: dict[str, Tally], where: Path, diffs: bool) -> Tally:
    whole = Tally()
    for one in files.values():
        whole.add(one)
    print(f"{module}: {whole.rate:.1f}% killed ({whole.killed} / {whole.counted}; "
          f"{whole.total} mutants, {whole.equivalent} equivalent, {len(whole.survivors)} survived, "
          f"{len(whole.untested)} reached by no listed test)")
    if whole.untried:
        print(f"    {whole.untried} mutants not tried yet (the run stopped early): run it again")
    for name, one in files.items():
        tried = f"{one.rate:.1f}% ({one.killed} / {one.counted})" if one.counted else "no mutant tried yet"
        print(f"    {name}: {tried}")
    shown = whole.survivors + whole.untested
    for name in shown:
        print(f"    survivor {name}")
    if diffs and shown:  # one process for them all: a `mutmut show` each cost a second of CPU per survivor
        subprocess.run([sys.executable, "-c", SHOW, *shown], cwd=where)
    return whole


SHOW = """
import sys
from mutmut.__main__ import find_mutant
from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.stats import status_by_exit_code
for name in sys.argv[1:]:
    mutant = find_mutant(name)
    print(f"# {name}: {status_by_exit_code[mutant.exit_code_by_key[name]]}")
    print(get_diff_for_mutant(name, path=mutant.path))
"""


def part_of(name: str, known_modules: dict[str, dict]) -> bool:
    """A part is run with the module that lists it (or on its own, by name)."""
    return any(name in spec.get("parts", []) for spec in known_modules.values())


def run(where: Path, spec: dict, jobs: int, only: list[str], known: dict[str, str]) -> None:
    earlier, before = results(where, spec, only), function_hashes(where, spec)
    mutmut(where, jobs, only)
    # Survivors keep their verdict in mutmut's cache: try them again against today's tests. Not those of a
    # function that changed: mutmut just tested its mutants afresh, and the old names now mean other mutants.
    again = to_try_again(earlier, before, function_hashes(where, spec), known)
    if again and not only:  # named mutants were just tested again
        mutmut(where, jobs, again)


def to_try_again(earlier: dict[str, int | None], before: dict[str, str | None], after: dict[str, str | None],
                 known: dict[str, str]) -> list[str]:
    """The survivors of the last run whose function did not change since."""
    return [name for name, code in earlier.items()
            if code not in KILLED and code not in SKIPPED and code not in NOT_TRIED and name not in known
            and name in after and after[name] == before.get(name)]


def main() -> int:
    known_modules = modules()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=f"any of: {', '.join(known_modules)}")
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--fresh", action="store_true", help="forget this module's earlier results")
    parser.add_argument("--report", action="store_true", help="print the last results without running mutmut")
    parser.add_argument("--diffs", action="store_true", help="show each survivor's change")
    parser.add_argument("--save", action="store_true",
                        help="with --report: write the results to tests/mutation_results/ (a run always does)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="only these files' mutants (a module's last name, e.g. numbers; or a glob of "
                             "mutant names): tested again each time; repeatable")
    args = parser.parse_args()
    unknown = [name for name in args.modules if name not in known_modules]
    if unknown:
        parser.error(f"unknown module {', '.join(unknown)}; known: {', '.join(known_modules)}")
    known = equivalents()
    only = name_patterns(args.only)
    rates: dict[str, Tally] = {}
    for module in args.modules or [name for name in known_modules if not part_of(name, known_modules)]:
        parts = known_modules[module].get("parts", [module])
        whole = Tally()
        for part in parts:
            spec = known_modules[part]
            where = stage(part, spec, args.fresh)
            if not args.fresh:
                seed(part, where)
            if not args.report:
                run(where, spec, args.jobs, only, known)
            if not args.report or args.save:
                save(part, where, spec)
            whole.add(report(part, tally(results(where, spec, only), known), where, args.diffs))
        if len(parts) > 1:
            print(f"{module} (its {len(parts)} parts): {whole.rate:.1f}% killed ({whole.killed} / {whole.counted})")
        rates[module] = whole
    print()
    for module, whole in rates.items():
        # A run that stopped early is not a pass, whatever the rate of the mutants it tried.
        verdict = f"  ({whole.untried} not tried yet)" if whole.untried else (
            "" if passed(whole) else f"  (below {TARGET:.0f}%)")
        print(f"{module:20} {whole.rate:5.1f}% killed{verdict}")
    return 0 if all(passed(whole) for whole in rates.values()) else 1


def passed(whole: Tally) -> bool:
    return whole.counted > 0 and not whole.untried and whole.rate >= TARGET


if __name__ == "__main__":
    sys.exit(main())
