"""A module of a subpackage, through an alias."""
import torch as th

th.set_grad_enabled(False)
