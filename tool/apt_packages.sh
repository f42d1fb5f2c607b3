# Sourced by tool/bootstrap.sh and bench/setup.sh.
# install_missing_packages LABEL PACKAGE...: apt-get installs those Debian packages that are not
# installed yet (nothing, not even `apt-get update`, when all are), as root or through sudo.
install_missing_packages() {
  local label=$1
  shift
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$package")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "$label: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}
