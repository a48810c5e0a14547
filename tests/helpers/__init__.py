"""What the tests share: plain-Python references and small helpers, imported by the
test modules from here (never from one another)."""
