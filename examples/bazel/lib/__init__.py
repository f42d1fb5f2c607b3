"""Helpers shared by the training and evaluation code."""
