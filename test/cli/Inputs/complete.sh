# Runs the bash completion script $1 on the words after it, the last one being the word under
# the cursor (give "" for a TAB after a space), and prints what it offers, on one line.
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
_gradlint
echo "${COMPREPLY[*]}"
