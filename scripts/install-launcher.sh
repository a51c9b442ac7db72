#!/bin/sh
# Put a `harness` launcher in a folder on PATH, so harness runs in any folder.
#
#   sh scripts/install-launcher.sh TARGET DIR
#
# TARGET is this checkout's .venv/bin/harness; DIR is where the launcher goes
# (`make install` passes ~/.local/bin). The launcher is a two-line script that runs
# TARGET. A launcher of ours (this marker on its second line) is replaced; any other
# file of that name is left alone, and the user is told how to run harness instead.
set -eu

target=$1
dir=$2
launcher=$dir/harness
marker="# harness launcher, written by 'make install'"

if [ ! -x "$target" ]; then
    echo "harness: $target does not exist; run 'make install' first" >&2
    exit 1
fi

if [ -e "$launcher" ] || [ -L "$launcher" ]; then
    if [ -L "$launcher" ] || [ ! -f "$launcher" ] || [ "$(sed -n 2p "$launcher")" != "$marker" ]; then
        echo "harness: $launcher exists and is not harness's launcher: left as it is."
        echo "harness: run $target, or link it into another folder on your PATH."
        exit 0
    fi
fi

# A folder that cannot be written (a read-only home in a container) costs the launcher,
# never the install.
if ! mkdir -p "$dir" 2>/dev/null || ! tmp=$(mktemp "$dir/.harness.XXXXXX" 2>/dev/null); then
    echo "harness: cannot write to $dir, so no launcher there: run $target,"
    echo "harness: or link it into a folder on your PATH."
    exit 0
fi
# A script rather than a symlink: it stays ours (the marker), and it runs the
# virtualenv's harness by its full path, whatever the shell's PATH holds.
quoted=$(printf '%s' "$target" | sed "s/'/'\\\\''/g")
printf '#!/bin/sh\n%s\nexec '"'"'%s'"'"' "$@"\n' "$marker" "$quoted" >"$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$launcher"

case ":${PATH:-}:" in
    *":$dir:"*)
        echo "harness: installed $launcher; run 'harness' in any folder."
        ;;
    *)
        echo "harness: installed $launcher, but $dir is not on your PATH. Add this line to"
        echo "your shell's startup file (~/.bashrc, ~/.zshrc), then open a new shell:"
        echo "    export PATH=\"$dir:\$PATH\""
        ;;
esac
