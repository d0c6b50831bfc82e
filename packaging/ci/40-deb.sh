#!/usr/bin/env bash
# The Debian package: cpack builds the .deb in the main build, its metadata is checked
# (name, licence, Depends), it is unpacked into a temporary tree (dpkg -x: no root, nothing
# installed on the machine) and the installed fogstudio-cli runs an installed preset; the
# documentation the studio's Help opens is where it looks (<prefix>/share/doc/fogstudio).
set -euo pipefail

build="${FOGSTUDIO_BUILD_DIR:?FOGSTUDIO_BUILD_DIR names the main build}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "40-deb: cpack -G DEB in $build"
(cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log" >&2; exit 1; }
deb="$(ls "$tmp"/out/fogstudio_*.deb)"
echo "40-deb: $(basename "$deb") ($(du -h "$deb" | cut -f1))"

fail() { echo "40-deb: $*" >&2; exit 1; }
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = fogstudio ] || fail "package name is $(field Package)"
depends="$(field Depends)"
echo "40-deb: Depends: $depends"
for lib in libqt6widgets6 libyaml-cpp libsqlite3 libqcustomplot libtorch dataset-fashion-mnist qt6-qpa-plugins; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib"
done
field Description | grep -q "GPL-3.0-or-later" || fail "the description does not state the licence"

root="$tmp/root"
dpkg -x "$deb" "$root"
for f in usr/bin/fogstudio usr/bin/fogstudio-cli usr/share/applications/fogstudio.desktop \
         usr/share/icons/hicolor/scalable/apps/fogstudio.svg usr/share/fogstudio/presets/quickstart.yaml \
         usr/share/doc/fogstudio/copyright usr/share/doc/fogstudio/README.md usr/share/doc/fogstudio/docs/runs.md; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done
grep -q "GNU GENERAL PUBLIC LICENSE" "$root/usr/share/doc/fogstudio/copyright" || fail "copyright is not the GPL"
grep -q "^Exec=fogstudio" "$root/usr/share/applications/fogstudio.desktop" || fail "desktop entry does not run fogstudio"

# The studio finds its documentation beside its binary: <bin>/../share/doc/fogstudio.
docs="$(cd "$root/usr/bin/../share/doc/fogstudio" && pwd)"
for d in README.md docs/studio.md docs/scenario.md docs/runs.md; do
  [ -s "$docs/$d" ] || fail "Help would not find $d under $docs"
done
for md in "$docs"/docs/*.md; do
  for fig in $(grep -o '](figures/[^)]*)' "$md" | sed 's/](//; s/)$//' || true); do
    [ -e "$docs/docs/$fig" ] || fail "$(basename "$md") shows $fig, not installed"
  done
done

echo "40-deb: the installed fogstudio-cli runs the installed quickstart preset"
"$root/usr/bin/fogstudio-cli" --version
"$root/usr/bin/fogstudio-cli" run "$root/usr/share/fogstudio/presets/quickstart.yaml" --set stop.rounds=2 \
  --threads 2 --no-store --json >"$tmp/run.json"
grep -q '"status": "finished"' "$tmp/run.json" || { cat "$tmp/run.json" >&2; fail "the installed run did not finish"; }
grep -E '"(rounds|final_test_accuracy)"' "$tmp/run.json"

# The Python module, when this build has it: installed for Debian's python3, it imports from
# the unpacked tree and runs the installed preset.
if [ -e "$build/python/fogstudio/__init__.py" ]; then
  pkg="$root/usr/lib/python3/dist-packages"
  [ -e "$pkg/fogstudio/__init__.py" ] || fail "the package lacks /usr/lib/python3/dist-packages/fogstudio"
  field Recommends | grep -q python3-pandas || fail "Recommends lacks python3-pandas"
  echo "40-deb: the installed Python module runs the installed quickstart preset"
  PYTHONPATH="$pkg" FOGSTUDIO_PRESETS="$root/usr/share/fogstudio/presets" /usr/bin/python3 -c '
import fogstudio
r = fogstudio.run(fogstudio.preset("quickstart.yaml"), overrides={"stop.rounds": 2}, store=False, threads=2)
assert r.status == "finished", r.summary
print("fogstudio", fogstudio.__version__, fogstudio.__file__, r)
'
fi
echo "40-deb: ok"
