"""The generated results tables of the README and the docs equal what their committed
records give (``python -m benchmarks tables``), and a stale one is named."""

import json
import shutil

import pytest

from benchmarks.tables import generate as tables


def test_every_generated_table_on_the_pages_equals_its_records():
    assert tables.stale() == []


def test_each_page_has_the_tables_it_promises():
    found = {
        page: [
            m["name"] for m in tables.MARKER.finditer((tables.ROOT / page).read_text())
        ]
        for page in tables.pages()
    }
    assert found["README.md"] == ["headline", "field-2048-readme", "c4-readme"]
    assert {"headline", "strength", "demo", "deeprl"} <= set(found["docs/results.md"])
    assert "ntuple-speed" in found["docs/speed.md"]
    comparison = found["benchmarks/results/comparison/README.md"]
    assert comparison == ["comparison-threes", "comparison-2048"]
    assert all(len(set(names)) == len(names) for names in found.values())
    used = {name for names in found.values() for name in names}
    assert used == set(tables.tables())  # every table has its place


def _copy_pages(root):
    for page in tables.pages():
        (root / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tables.ROOT / page, root / page)


def test_a_hand_edited_number_is_named_with_its_page_and_table(tmp_path):
    _copy_pages(tmp_path)
    before = tables.stale(tmp_path)  # (empty unless a record changed since)
    page = tmp_path / "benchmarks/results/head-to-head/README.md"
    text = page.read_text()
    start = text.index("<!-- table:eval-2048 -->")
    row = text.index("| `greedy` | 20 | ", start)
    page.write_text(text[:row] + text[row:].replace("| 20 | ", "| 21 | ", 1))
    after = tables.stale(tmp_path)
    assert sorted(set(after) - set(before)) == [
        "benchmarks/results/head-to-head/README.md: table eval-2048"
    ]


def test_a_changed_record_makes_its_table_stale(tmp_path, monkeypatch):
    _copy_pages(tmp_path)
    results = tmp_path / "results"
    shutil.copytree(tables.RESULTS, results)
    record = results / "comparison" / "2048-v0.json"
    data = json.loads(record.read_text())
    greedy = next(a for a in data["agents"] if a["spec"] == "greedy")
    greedy["mean"] += 1000
    record.write_text(json.dumps(data))
    monkeypatch.setattr(tables, "RESULTS", results)
    monkeypatch.setattr("benchmarks.records.comparison.RESULTS", results / "comparison")
    assert "README.md: table headline" in tables.stale(tmp_path)
    stale = tables.stale(tmp_path)
    assert "benchmarks/results/comparison/README.md: table comparison-2048" in stale


def test_check_exits_non_zero_naming_the_table_and_rewrite_fixes_it(
    tmp_path, monkeypatch, capsys
):
    _copy_pages(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text().replace("| random | 276 ", "| random | 277 "))
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    with pytest.raises(SystemExit) as stop:
        tables.main(["--check"])
    assert stop.value.code == 1
    assert "stale: README.md: table headline" in capsys.readouterr().out
    tables.main([])
    assert "rewrote README.md" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        tables.main(["--check"])
    assert stop.value.code == 0
    assert (tmp_path / "README.md").read_text() == (
        tables.ROOT / "README.md"
    ).read_text()


def test_an_unknown_table_name_is_refused():
    with pytest.raises(ValueError, match="x.md: unknown table 'nope'"):
        tables.render("x.md", "<!-- table:nope -->\nold\n<!-- /table:nope -->\n")


def test_the_docs_name_records_as_paths_and_the_readme_links_them():
    readme = tables.render(
        "README.md", "<!-- table:headline -->\n<!-- /table:headline -->"
    )
    assert "[the comparison records](benchmarks/results/comparison/)" in readme
    docs = tables.render(
        "docs/results.md", "<!-- table:strength -->\n<!-- /table:strength -->"
    )
    assert "](benchmarks/" not in docs and "| threes-features-d1 |" in docs


def test_every_kind_draws_a_table():
    """No renderer is kept for a table that is gone (a part of a ``parts`` table
    counts)."""
    specs = [spec for _, spec in tables.tables().values()]
    specs += [p for s in specs for p in s.get("parts", ()) if isinstance(p, dict)]
    assert {spec["kind"] for spec in specs} == set(tables.KINDS)


def test_each_manifest_names_every_file_of_its_study_and_no_other():
    """A study's ``records`` are exactly its files (a subfolder without a README of
    its own belongs to the study above it), and every table reads named records."""
    studies = {m.parent for m in tables.RESULTS.rglob("README.md")}
    assert studies == set(tables.manifests())
    for folder, manifest in tables.manifests().items():
        files = set()
        for path in folder.rglob("*"):
            owner = path.parent
            while owner not in studies:
                owner = owner.parent
            if path.is_file() and owner == folder:
                files.add(path.relative_to(folder).as_posix())
        files -= {"README.md", "manifest.json"}
        assert sorted(files) == manifest["records"], folder
        assert (
            manifest["study"] == (folder / "README.md").read_text().split("\n")[0][2:]
        )


def _study(root, tables_of):
    root.mkdir(parents=True)
    (root / "README.md").write_text("# x\n")
    manifest = {"study": "x", "records": [], "tables": tables_of}
    (root / "manifest.json").write_text(json.dumps(manifest))


def test_a_table_named_twice_or_of_an_unknown_kind_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "RESULTS", tmp_path)
    _study(tmp_path / "a", {"t": {"kind": "strength"}})
    _study(tmp_path / "b", {"t": {"kind": "strength"}})
    with pytest.raises(ValueError, match="table 't' is in a/ and b/"):
        tables.tables()
    _study(tmp_path / "c", {"u": {"kind": "nope"}})
    (tmp_path / "b" / "manifest.json").unlink()
    with pytest.raises(ValueError, match="c/manifest.json: table 'u' has kind 'nope'"):
        tables.tables()


def test_a_relabelled_row_in_a_manifest_makes_its_table_stale(tmp_path, monkeypatch):
    _copy_pages(tmp_path)
    results = tmp_path / "results"
    shutil.copytree(tables.RESULTS, results)
    path = results / "head-to-head" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["tables"]["eval-2048"]["labels"]["mc:n_rollouts=50"] = "mc, fifty"
    path.write_text(json.dumps(manifest))
    monkeypatch.setattr(tables, "RESULTS", results)
    assert tables.stale(tmp_path) == [
        "benchmarks/results/head-to-head/README.md: table eval-2048"
    ]


def test_each_manifest_is_written_as_the_record_makers_write_it():
    """A record maker that names a new record rewrites the manifest
    (:func:`benchmarks.common.name_records`): the committed text is what it writes."""
    from benchmarks.common import manifest_text

    for folder in tables.manifests():
        text = (folder / tables.MANIFEST).read_text()
        assert manifest_text(json.loads(text)) == text, folder


def _field_cells(name: str) -> list[list[str]]:
    """The body cells of field table ``name``, rendered from the records."""
    folder, spec = tables.tables()[name]
    text = tables.field(folder, spec, lambda path, label: label)
    return [[c.strip() for c in r.split("|")[1:-1]] for r in text.splitlines()[2:]]


def test_the_field_table_reads_our_records_and_labels_the_others_as_theirs(
    tmp_path, monkeypatch
):
    """Our rows of ``field-2048`` come from the records (a strength record short of
    its planned games says so; training hours from the run's ``progress.csv``); the
    other players' rows are labelled as theirs and carry no interval of ours."""
    import csv

    results = tmp_path / "results"
    shutil.copytree(tables.RESULTS, results)
    record = results / "strength" / "2048-default.json"
    data = json.loads(record.read_text())
    n = min(7, len(data["games"]))  # a record cut short of its planned 300 games
    data["games"] = data["games"][:n]
    record.write_text(json.dumps(data))
    monkeypatch.setattr(tables, "RESULTS", results)
    folder, spec = tables.tables()["field-2048"]
    rows = _field_cells("field-2048")
    ours = [r for r in rows if r[1].startswith("ours: ")]
    theirs = [r for r in rows if r[1] == "theirs, as published"]
    assert len(ours) == len(spec["ours"]) and len(ours) + len(theirs) == len(rows)
    default = ours[0]
    assert default[1] == "ours: `strength/2048-default.json`"
    assert default[2] == f"{n} of 300 (in progress)"
    scores = [g["score"] for g in data["games"]]
    assert default[3] == f"{sum(scores) / n:,.0f}"
    with (folder / "../ntuple-2048-5x6/progress.csv").open() as f:
        row = next(r for r in csv.DictReader(f) if r["games"] == "230000")
    hours = float(row["cpu_seconds"]) / 3600
    assert default[-1] == f"{hours:.1f} CPU h (230,000 games)"
    assert all(r[4] == "" for r in theirs)  # their figures: no interval of ours
    anchors = json.loads((folder / spec["anchors"]).read_text())["players"]
    assert len(theirs) == sum(len(p["rows"]) for p in anchors)
    assert any(r[3] == "563,316" and r[5] == "57.9%" for r in theirs)  # TDL2048+


def test_the_readme_field_table_picks_rows_of_the_full_one():
    """The README's ``field-2048-readme`` holds our rows and the picked rows of
    theirs, each marked "(theirs)", with the figures of the full table."""
    short = tables.tables()["field-2048-readme"][1]
    rows, every = _field_cells("field-2048-readme"), _field_cells("field-2048")
    theirs = [r for r in rows if r[0].endswith(" (theirs)")]
    assert len(theirs) == len(short["pick"]) and len(rows) - len(theirs) == 5
    means = {r[0]: r[3] for r in every if r[1] == "theirs, as published"}
    assert all(means[r[0].removesuffix(" (theirs)")] == r[2] for r in theirs)


def test_the_curves_table_sets_runs_side_by_side_at_equal_games(tmp_path):
    """A ``curves`` row per ``every`` games any run reached: each run's training
    mean, greedy mean and CPU hours at that row, blank where a run is not there yet."""
    head = "games,moves,train_score_mean,eval_score_mean,eval_goal_rate,updates,"
    head += "cpu_seconds\n"
    (tmp_path / "a.csv").write_text(
        head + "5000,1,100.4,90,1,1,360\n10000,1,200,180.6,1,1,7200\n"
    )
    (tmp_path / "b.csv").write_text(head + "5000,1,110,95,1,1,400\n")
    spec = {"every": 5000, "eval_games": 100, "runs": [["A", "a.csv"], ["B", "b.csv"]]}
    text = tables.curves(tmp_path, spec, lambda path, label: label)
    rows = [[c.strip() for c in r.split("|")[1:-1]] for r in text.splitlines()]
    assert rows[0] == [
        "games",
        "A: training",
        "greedy, 100",
        "CPU h",
        "B: training",
        "greedy, 100",
        "CPU h",
    ]
    assert rows[2] == ["5,000", "100", "90", "0.10", "110", "95", "0.11"]
    assert rows[3] == ["10,000", "200", "181", "2.00", "", "", ""]
    assert len(rows) == 4


def test_the_levers_table_takes_each_runs_last_snapshot_within_the_cpu_cap(tmp_path):
    """An ``alphazero-levers`` row a run: its last snapshot within ``cpu_hours`` that
    was measured at every count of ``sims``, with the shares and their intervals."""
    head = "iteration,games,positions,cpu_hours,simulations,matters,perfect,share\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "curve.csv").write_text(
        head
        + "5,1280,100,0.2,0,400,300,0.75\n5,1280,100,0.2,100,400,360,0.9\n"
        + "10,2560,200,0.4,0,400,320,0.8\n"  # 100 simulations not measured yet
        + "15,3840,300,0.6,0,400,330,0.825\n15,3840,300,0.6,100,400,380,0.95\n"
    )
    spec = {"cpu_hours": 0.5, "sims": [0, 100], "runs": [["A", "a"]]}
    text = tables.alphazero_levers(tmp_path, spec, lambda path, label: label)
    rows = [[c.strip() for c in r.split("|")[1:-1]] for r in text.splitlines()]
    assert rows[0][-2:] == ["perfect, raw policy", "perfect, 100 simulations"]
    assert rows[2][:4] == ["A", "5", "1,280", "0.20"]
    assert rows[2][4].startswith("75.0% [") and rows[2][5].startswith("90.0% [")
    assert len(rows) == 3
