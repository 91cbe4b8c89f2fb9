"""``make bench``'s summary (tests/bench_summary.py) reads pytest-benchmark's JSON right: ratios, goals, verdicts,
the worst raw-RNG path of each group and of the report."""

import json

from tests import bench_summary


def _bench(name, group, seconds, **info):
    return {"name": name, "group": group, "stats": {"min": seconds}, "extra_info": info}


REPORT = {"benchmarks": [
    _bench("test_bench_fast", "g", 0.02, goal="< 50 ms", limit="FFT"),
    _bench("test_bench_naive_baseline", "g", 0.5),
    _bench("test_bench_sim", "h", 2.0, ratio_to_raw_rng=0.4, goal="≥ 0.5"),
    _bench("test_bench_sim_grid[d=16]", "h", 0.5, ratio_to_raw_rng=0.7, goal="≥ 0.5"),
    _bench("test_bench_draws", "m", 1.0, ratio_to_raw_rng=0.3),
    _bench("test_bench_alone", "k", 0.2, goal="< 0.1 s"),
]}


def test_a_path_is_read_against_its_groups_baseline_and_its_goal():
    rows = {r.path: r for r in bench_summary.rows(REPORT)}
    assert set(rows) == {"fast", "sim", "sim_grid[d=16]", "draws", "alone"}  # a baseline is a reference, not a row
    fast = rows["fast"]
    assert (fast.against, fast.ratio, fast.met, fast.limit) == ("naive_baseline", 25.0, "yes", "FFT")


def test_a_ratio_to_raw_random_numbers_and_an_absolute_time_are_judged_against_their_goals():
    rows = {r.path: r for r in bench_summary.rows(REPORT)}
    assert (rows["sim"].against, rows["sim"].ratio, rows["sim"].met) == ("raw RNG", 0.4, "no")
    assert (rows["alone"].against, rows["alone"].ratio, rows["alone"].met) == ("", None, "no")


def test_the_summary_prints_every_group_and_path_then_the_worst_lines(tmp_path, capsys):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(REPORT))
    assert bench_summary.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert all(s in out for s in ("[g]", "[h]", "[k]", "[m]", "25×", "0.4", "20 ms", "200 ms"))
    # the lowest raw-RNG ratio of each group of several ([m] has one: no line), then of the whole report
    assert out.rstrip().splitlines()[-2:] == ["worst in [h]: sim 0.4", "worst raw RNG overall: draws 0.3 in [m]"]

