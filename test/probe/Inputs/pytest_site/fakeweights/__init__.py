# A stand-in for an installed package (put on PYTHONPATH by the tests, as site-packages would
# be) whose loader turns grad mode off for the whole thread and never restores it.
from fakeweights.loader import load_frozen
