# Sourced by the benchmarks that compare with DuckDB: installs the npm
# package @duckdb/node-api into $out/node (once). Needs node and npm.
command -v node >/dev/null 2>&1 || { echo "the DuckDB benchmarks need node and npm" >&2; exit 1; }
if [ ! -d "$out/node/node_modules/@duckdb/node-api" ]; then
  echo "installing @duckdb/node-api (npm)"
  mkdir -p "$out/node"
  (cd "$out/node" && npm init -y >/dev/null && npm install --silent @duckdb/node-api >/dev/null)
fi
