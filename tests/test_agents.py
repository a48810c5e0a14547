"""Agent specs: parsing, errors that list what is accepted, and option lookup."""

import pytest

from playahead.agents import make_agent, parse_spec, register_agent, takes_option


class _NoSeed:
    def __init__(self, depth: int = 1):
        self.depth = depth

    def act(self, env) -> int:
        return 0


register_agent("test_no_seed", _NoSeed, "an agent without a seed option")


def test_spec_values_are_typed():
    name, options = parse_spec("mcts:n_simulations=1_000,c=1.4,reuse=false,x=none,t=ab")
    assert name == "mcts"
    assert options == {
        "n_simulations": 1000,
        "c": 1.4,
        "reuse": False,
        "x": None,
        "t": "ab",
    }


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "non-empty"),
        ("mcts:n_simulations", "key=value"),
        ("no_such_agent", "available: .*random"),
        ("test_no_seed:width=3", "accepted: depth"),
    ],
)
def test_bad_specs_say_what_is_accepted(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_takes_option_reads_the_factory_signature():
    assert takes_option("random", "seed")
    assert not takes_option("test_no_seed:depth=2", "seed")
    assert takes_option("test_no_seed", "depth")
    assert not takes_option("no_such_agent", "seed")
    assert make_agent("test_no_seed:depth=2").depth == 2
