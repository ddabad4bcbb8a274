"""`heartcompass graph` at 500 and 5,000 people: the map must cost in
proportion to the people and links, not their square.

    python benchmarks/graph.py

Each person links to one to three earlier people (and every 50th starts a
chain of ten). Times whole commands in process as CPU time: the Mermaid
export per person, and the tree per character printed (a deep tree's lines
carry its depth, so its output is not linear in people), each at 5,000
against 500 (targets: at most 1.5x)."""

from __future__ import annotations

import io
import random
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from heartcompass.store.creation import copy_template  # noqa: E402


def make_workspace(root: Path, people: int) -> Path:
    root.mkdir()
    copy_template(root)
    rnd = random.Random(people)
    slugs: list[str] = []
    for i in range(people):
        slug = f"person-{i:05d}"
        # mostly links to a few earlier people; every 50th starts a chain through the next ones
        targets = rnd.sample(slugs, min(len(slugs), rnd.randint(1, 3))) if slugs and i % 50 else []
        if i % 50 > 0 and i % 50 < 10:
            targets = [slugs[-1]]
        related = "".join(f"\n- person: {t}\n  as: a friend" for t in targets) or " []"
        folder = root / "people" / slug
        folder.mkdir(parents=True)
        (folder / "PROFILE.md").write_text(f"---\nname: Person {i}\nrelation: friend\nrelated:{related}"
                                           f"\n---\n\n## Background\nSomeone.\n", encoding="utf-8")
        slugs.append(slug)
    return root


def run_graph(root: Path, *args: str) -> tuple[float, int]:
    """(CPU seconds, characters printed) of one `graph` command, in process."""
    from typer.testing import CliRunner

    from heartcompass.cli.app import app

    start = time.process_time()
    result = CliRunner().invoke(app, ["--workspace", str(root), "graph", *args])
    elapsed = time.process_time() - start
    if result.exit_code != 0:
        raise SystemExit(f"graph {' '.join(args)} failed: {result.output[-500:]} {result.exception!r}")
    return elapsed, len(result.output)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        per_person, per_char = {}, {}
        for n in (500, 5_000):
            root = make_workspace(Path(tmp) / f"ws{n}", n)
            with redirect_stdout(io.StringIO()):
                run_graph(root, "--format", "mermaid")  # warm the file cache and the people index
            time.sleep(2.1)  # files settle: the index caches only files unchanged for two seconds
            run_graph(root, "--format", "mermaid")
            mermaid, _ = run_graph(root, "--format", "mermaid")
            tree, chars = run_graph(root)
            per_person[n], per_char[n] = mermaid / n, tree / chars
            print(f"{n:>6} people: mermaid {mermaid:6.2f} s, tree {tree:6.2f} s CPU ({chars / 1e6:.1f} M characters: "
                  f"a deep tree's lines grow with its depth)")
        ratio = per_person[5_000] / per_person[500]
        print(f"mermaid, time per person, 5,000 vs 500: {ratio:.2f}x ({'ok' if ratio <= 1.5 else 'OVER'}, "
              f"target 1.5x: linear)")
        ratio = per_char[5_000] / per_char[500]
        print(f"tree, time per character printed, 5,000 vs 500: {ratio:.2f}x ({'ok' if ratio <= 1.5 else 'OVER'}, "
              f"target 1.5x)")


if __name__ == "__main__":
    main()
