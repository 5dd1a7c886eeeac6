"""The suite's command line: `bazel run //:bench -- --help` names the command a user types, every flag has one
spelling in --help (dashes), and the underscore spelling older instructions used parses to the same thing."""

import contextlib
import io
import json
import os
import tempfile
import unittest

from bench.cli import plan as run_plan
from bench.cli import suite
from bench.scenarios import catalogue
from bench.scenarios import writeup_definitions


def parse(argv):
    return vars(suite.command_line().parse_args(argv))


class CommandLineTest(unittest.TestCase):
    def test_help_says_the_command_a_user_types(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit) as done:
            suite.command_line().parse_args(["--help"])
        self.assertEqual(done.exception.code, 0)
        text = out.getvalue()
        self.assertTrue(text.splitlines()[0].startswith("usage: bazel run //:bench -- "), text.splitlines()[0])
        self.assertNotIn("suite.py", text)
        self.assertNotRegex(text, r"[Ii]ssues? [0-9]")

    def test_help_shows_one_spelling_per_flag(self):
        text = suite.command_line().format_help()
        for flag in ("--echo-seconds", "--websocket-messages", "--fanout-samples", "--fanout-reps",
                     "--server-host", "--client-hosts", "--compare-loopback"):
            self.assertIn(flag, text)
            self.assertNotIn("--" + flag[2:].replace("-", "_"), text)

    def test_both_spellings_parse_to_the_same_thing(self):
        dashes = ["--echo-seconds=2.5", "--websocket-messages=300", "--fanout-samples=4", "--fanout-reps=5",
                  "--server-host=bench@h1", "--client-hosts=h2,h3", "--server-address=10.0.0.1",
                  "--remote-dir=/opt/nb", "--ssh-config=cfg", "--compare-loopback"]
        underscores = ["--echo_seconds=2.5", "--websocket_messages=300", "--fanout_samples=4", "--fanout_reps=5",
                       "--server_host=bench@h1", "--client_hosts=h2,h3", "--server_address=10.0.0.1",
                       "--remote_dir=/opt/nb", "--ssh_config=cfg", "--compare_loopback"]
        self.assertEqual(parse(dashes), parse(underscores))
        parsed = parse(dashes)
        self.assertEqual((parsed["echo_seconds"], parsed["websocket_messages"], parsed["fanout_samples"],
                          parsed["fanout_reps"], parsed["server_host"], parsed["compare_loopback"]),
                         (2.5, 300, 4, 5, "bench@h1", True))
        # Separate values too, as a shell script might pass them.
        self.assertEqual(parse(["--echo_seconds", "3"])["echo_seconds"], 3.0)

    def test_defaults_are_unchanged_by_the_aliases(self):
        parsed = parse([])
        self.assertEqual((parsed["samples"], parsed["echo_seconds"], parsed["websocket_messages"],
                          parsed["fanout_samples"], parsed["fanout_reps"], parsed["client_hosts"],
                          parsed["server_host"], parsed["quick"], parsed["compare_loopback"]),
                         (None, None, None, None, None, "", None, False, False))
        # The lengths' defaults are the write-up definitions' own, which a flag's None keeps.
        settings = writeup_definitions.ECHO.settings_for(planned([]).overrides(writeup_definitions.ECHO))
        self.assertEqual(settings["seconds"], writeup_definitions.ECHO.settings["seconds"])

    def test_a_flag_given_changes_its_scenarios_setting_and_no_other_scenarios(self):
        plan = planned(["--echo-seconds=5", "--rounds=3"])
        self.assertEqual(plan.overrides(writeup_definitions.ECHO), {"seconds": 5.0, "samples": 3})
        # A detail scenario keeps its own loads and takes the rounds.
        echo_models = catalogue.BY_PART["echo-models"]
        self.assertEqual(echo_models.settings_for(plan.overrides(echo_models)),
                         {"seconds": 10.0, "rate": 50000, "samples": 3})

    def test_as_written_runs_the_writeups_own_lengths_in_fixed_shared_rounds(self):
        args = resolved(["--as-written"])
        self.assertEqual((args.design, args.samples, args.placements),
                         ("fixed", run_plan.AS_WRITTEN_ROUNDS, ["shared"]))
        plan = planned(["--as-written"])
        echo, websocket = writeup_definitions.ECHO, writeup_definitions.WEBSOCKET
        self.assertEqual(echo.settings_for(plan.overrides(echo), as_written=True)["seconds"], 180.0)
        self.assertEqual(websocket.settings_for(plan.overrides(websocket), as_written=True)["messages"], 100000)
        # A flag given still wins over the write-up's length.
        self.assertEqual(args.fanout_samples, run_plan.AS_WRITTEN_ROUNDS)
        args = resolved(["--as-written", "--echo-seconds=20", "--rounds=2"])
        self.assertEqual(args.fanout_samples, 2)
        plan = planned(["--as-written", "--echo-seconds=20", "--rounds=2"])
        self.assertEqual((echo.settings_for(plan.overrides(echo), as_written=True)["seconds"], plan.samples),
                         (20.0, 2))
        self.assertEqual((plan.parts, plan.label.endswith("-as-written")), (("echo", "websocket", "fanout"), True))
        parts, chosen = run_plan.as_written_choice(["micro", "echo"], [{"name": n} for n in (
            "racket", "go", "netbench-epoll", "go-spammer", "netbench-echo-client")])
        self.assertEqual((parts, [e["name"] for e in chosen]), (["echo"], ["racket", "go", "go-spammer"]))

    def test_as_written_refuses_the_main_jobs_flags(self):
        for extra in (["--quick"], ["--budget=10m"], ["--margin=3"], ["--placement=split"]):
            with self.assertRaises(ValueError, msg=extra):
                resolved(["--as-written"] + extra)


def resolved(argv):
    """The flags as plan.resolve_flags reconciles them; ValueError (PlanError) where they disagree."""
    return run_plan.resolve_flags(suite.command_line().parse_args(argv))


def planned(argv):
    """The frozen Plan of a command line, over the default registry."""
    from bench.registry import registry
    return run_plan.plan_of(resolved(argv), registry.load(run_plan.DEFAULT_REGISTRY), {})


class DesignFlagsTest(unittest.TestCase):
    def refused(self, argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as done:
            suite.main(argv)
        self.assertEqual(done.exception.code, 2, err.getvalue())
        return err.getvalue()

    def test_without_rounds_the_write_ups_spend_a_30_minute_budget(self):
        args = resolved([])
        self.assertEqual((args.design, args.budget_s, args.margin), ("sequential", 1800.0, 0.05))
        self.assertEqual((args.samples, args.fanout_samples, args.fixed_rounds), (10, 3, set()))

    def test_rounds_are_drawn_from_a_new_seed_each_run_unless_one_is_given(self):
        first, second = planned([]), planned([])
        self.assertEqual((first.order["how"], first.block_rounds), (run_plan.DRAWN, run_plan.BLOCK_ROUNDS))
        self.assertNotEqual(first.order["seed"], second.order["seed"])
        given = planned(["--seed=7", "--order=listed", "--block-rounds=0"])
        self.assertEqual((dict(given.order), given.block_rounds), ({"how": run_plan.LISTED, "seed": 7}, 0))

    def test_an_order_or_block_length_out_of_range_exits_2(self):
        self.assertIn("--order", self.refused(["--order=alphabetical", "--list"]))
        self.assertIn("--block-rounds", self.refused(["--block-rounds=-1", "--only=echo", "--quick"]))

    def test_budget_spellings(self):
        for text, seconds in (("30m", 1800), ("1800s", 1800), ("1800", 1800), ("1h", 3600), ("1.5m", 90),
                              ("3min", 180)):
            self.assertEqual(resolved([f"--budget={text}"]).budget_s, seconds, text)
        self.assertEqual(resolved(["--margin=2.5%"]).margin, 0.025)

    def test_a_budget_that_does_not_parse_exits_2(self):
        for text in ("abc", "30x", "-5m", "0", ""):
            self.assertIn("--budget", self.refused([f"--budget={text}", "--list"]))
        self.assertIn("--margin", self.refused(["--margin=80", "--list"]))

    def test_rounds_are_the_fixed_design_and_samples_their_older_spelling(self):
        for argv in (["--rounds=7"], ["--samples=7"], ["--rounds=7", "--samples=7"]):
            args = resolved(argv)
            self.assertEqual((args.design, args.samples, args.fanout_samples), ("fixed", 7, 3))
        self.assertEqual(resolved(["--quick"]).design, "fixed")

    def test_flags_that_bound_the_same_thing_must_agree(self):
        self.assertIn("name the same thing", self.refused(["--rounds=7", "--samples=8", "--list"]))
        self.assertIn("name one", self.refused(["--rounds=7", "--budget=10m", "--list"]))
        self.assertIn("name one", self.refused(["--samples=7", "--margin=3", "--list"]))
        self.assertIn("name one", self.refused(["--quick", "--budget=10m", "--list"]))

    def test_fanout_samples_alone_fix_the_fanout_only(self):
        args = resolved(["--fanout-samples=4"])
        self.assertEqual((args.design, args.fanout_samples, args.fixed_rounds), ("sequential", 4, {"fanout_samples"}))


class ContestantsFileTest(unittest.TestCase):
    """--contestants=FILE adds its entries to the registry; one that replaces a registry entry is said."""

    def test_a_file_adds_its_entries_and_says_which_it_replaces(self):
        from bench.registry import registry
        go = next(e for e in registry.load(registry.DEFAULT_PATH) if e["name"] == "go" and e["role"] == "server")
        mine = {**go, "name": "mine", "system": "mine", "about": "my echo server"}
        path = os.path.join(tempfile.mkdtemp(), "my.json")
        with open(path, "w") as f:
            json.dump({"contestants": [mine, {**go, "about": "Go's, rebuilt"}]}, f)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            self.assertEqual(suite.main(["--list", f"--contestants={path}"]), 0)
        listed = {tuple(line.split(None, 3)) for line in out.getvalue().splitlines()}
        self.assertIn(("echo", "server", "mine", "my echo server"), listed)
        self.assertIn(("echo", "server", "go", "Go's, rebuilt"), listed)
        self.assertIn(("echo", "server", "racket"), {t[:3] for t in listed})  # the registry's own stay
        self.assertEqual(err.getvalue(), f"bench: {path} replaces the registry's echo server go\n")


if __name__ == "__main__":
    unittest.main()
