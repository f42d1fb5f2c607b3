"""python -m gradlint.pre_commit ARGS: the hook."""
from gradlint import exec_gradlint
import gradlint
