"""playahead: look-ahead planners, Gymnasium envs and RL baselines for games.

``import playahead`` registers the environments (``gym.make("Threes-v0")``) and exposes
:func:`make_agent`.
"""

from playahead.agents import Analysis, make_agent, register_agent
from playahead.envs import register_envs

__version__ = "0.1.0"
__all__ = ["Analysis", "make_agent", "register_agent", "__version__"]

register_envs()
