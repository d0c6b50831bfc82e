#!/usr/bin/env bash
# Installs the Debian 12 packages FogStudio needs to build, run and test, when missing.
# Safe to run again: it installs only what dpkg does not already report as installed.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libqt6svg6 qt6-qpa-plugins libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  libtorch-dev
  libyaml-cpp-dev libsqlite3-dev zlib1g-dev libsleef-dev
  libopenblas0-pthread libblis4-serial
  libopenmpi-dev openmpi-bin
  dataset-fashion-mnist
  xvfb xauth fonts-dejavu-core
  python3
  clang libclang-rt-14-dev
  python3-dev pybind11-dev python3-pandas python3-pytest python3-nbclient python3-nbformat python3-ipykernel
  python3-matplotlib
  iproute2
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
