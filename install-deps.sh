#!/bin/sh
# Installs the Debian 12 packages qkv needs to build, test and plot, the matrix products of
# oneDNN (libdnnl), and the Fashion-MNIST images, speech synthesis (espeak-ng), FFTs (FFTW),
# audio files (libsndfile), graph drawing (Graphviz), the HTTP server of qkv serve and qkv board
# (libmicrohttpd) it reads or calls, and for the tests curl and the headless browser of qkv
# board's page test (chromium) (as root, or through sudo).
set -eu
if [ "$(id -u)" -ne 0 ]; then
    exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential cmake pkg-config \
    libopenblas-dev libhdf5-dev libyaml-dev libcmocka-dev zlib1g-dev libunistring-dev \
    gnuplot-nox clang openmpi-bin libopenmpi-dev help2man curl \
    python3 python3-numpy python3-h5py python3-yaml python3-torch python3-protobuf \
    dataset-fashion-mnist libespeak-ng-dev libfftw3-dev libsndfile1-dev graphviz libdnnl-dev libmicrohttpd-dev chromium
