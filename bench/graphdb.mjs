// The DuckDB peer of bench/graphdb.sh, copied into bench/out/node (where
// @duckdb/node-api is installed) and run with node:
//
//   node graphdb.mjs load DBFILE NODES_CSV EDGES_CSV
//     loads both CSV files into the tables nodes and edges of the
//     persistent database DBFILE (CREATE TABLE ... AS SELECT * FROM
//     read_csv(...), then CHECKPOINT, so that the rows are durably in the
//     file) and prints "secs=S nodes=N edges=M": the seconds of the
//     statements alone (in-process) and the rows of each table.
//
//   node graphdb.mjs walk DBFILE STARTS_FILE
//     first indexes edges (left_id) (an ART index, made once, untimed:
//     without it each query scans the edges, tens of ms at 2,000,000);
//     then, for each start vertex key of STARTS_FILE (one a line), runs the
//     3-hop traversal FOR v IN 1..3 OUTBOUND start edges RETURN v._key as
//     SQL, one prepared statement, three joins; paths never reuse an edge
//     (ArangoDB's default uniqueness, uniqueEdges "path"); and prints
//     "starts=K rows=R empty=E p50_ms= p90_ms= p99_ms= total_s= index_s=",
//     the latency of each execution with its rows read, and the seconds
//     the index took.
//
//   node graphdb.mjs lookup DBFILE STARTS_FILE
//     indexes nodes (name) (timed: index_s), then for each start vertex
//     key n0000042 runs SELECT * FROM nodes WHERE name = 'node 42' (one
//     prepared statement) and prints "lookups=K rows=R p50_ms= p90_ms=
//     p99_ms= total_s= index_s=".
//
// The traversal gives DuckDB its best shot: the index on left_id, and it
// returns right_id without joining nodes (every vertex exists, so the keys
// are the same as v._key).
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [mode, file, ...rest] = process.argv.slice(2);
const db = await DuckDBInstance.create(file);
const conn = await db.connect();

// count TABLE: the rows of TABLE.
async function count(table) {
  const r = await conn.runAndReadAll(`SELECT count(*) FROM ${table}`);
  return String(r.getRows()[0][0]);
}

// pct: the nearest-rank percentile q of sorted numbers (as bench/graphwalk).
const pct = (s, q) => s[Math.max(0, Math.ceil(q * s.length) - 1)];

if (mode === 'load') {
  const [nodes, edges] = rest;
  const t0 = performance.now();
  await conn.run(`CREATE TABLE nodes AS SELECT * FROM read_csv('${nodes}')`);
  await conn.run(`CREATE TABLE edges AS SELECT * FROM read_csv('${edges}')`);
  await conn.run('CHECKPOINT');
  const secs = (performance.now() - t0) / 1000;
  console.log(`secs=${secs.toFixed(3)} nodes=${await count('nodes')} edges=${await count('edges')}`);
} else if (mode === 'walk') {
  const starts = readFileSync(rest[0], 'utf8').split('\n').filter((s) => s !== '');
  const ti = performance.now();
  await conn.run('CREATE INDEX IF NOT EXISTS edges_left ON edges (left_id)');
  await conn.run('CHECKPOINT');
  const index = (performance.now() - ti) / 1000;
  const stmt = await conn.prepare(`
    WITH h1 AS (SELECT rowid AS r1, right_id AS v FROM edges WHERE left_id = $1),
    h2 AS (SELECT h1.r1, e.rowid AS r2, e.right_id AS v
           FROM h1 JOIN edges e ON e.left_id = h1.v WHERE e.rowid <> h1.r1),
    h3 AS (SELECT e.right_id AS v
           FROM h2 JOIN edges e ON e.left_id = h2.v WHERE e.rowid <> h2.r1 AND e.rowid <> h2.r2)
    SELECT v FROM h1 UNION ALL SELECT v FROM h2 UNION ALL SELECT v FROM h3`);
  const times = [];
  let rows = 0;
  let empty = 0;
  const t0 = performance.now();
  for (const start of starts) {
    const t = performance.now();
    stmt.bindVarchar(1, start);
    const n = (await stmt.runAndReadAll()).getRows().length;
    times.push(performance.now() - t);
    rows += n;
    if (n === 0) empty++;
  }
  const total = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  const ms = (q) => pct(times, q).toFixed(3);
  console.log(`starts=${starts.length} rows=${rows} empty=${empty} p50_ms=${ms(0.5)} p90_ms=${ms(0.9)} p99_ms=${ms(0.99)} total_s=${total.toFixed(3)} index_s=${index.toFixed(3)}`);
} else if (mode === 'lookup') {
  const starts = readFileSync(rest[0], 'utf8').split('\n').filter((s) => s !== '');
  const ti = performance.now();
  await conn.run('CREATE INDEX IF NOT EXISTS nodes_name ON nodes (name)');
  await conn.run('CHECKPOINT');
  const index = (performance.now() - ti) / 1000;
  const stmt = await conn.prepare('SELECT * FROM nodes WHERE name = $1');
  const times = [];
  let rows = 0;
  const t0 = performance.now();
  for (const start of starts) {
    const t = performance.now();
    stmt.bindVarchar(1, `node ${parseInt(start.slice(1), 10)}`);
    rows += (await stmt.runAndReadAll()).getRows().length;
    times.push(performance.now() - t);
  }
  const total = (performance.now() - t0) / 1000;
  times.sort((a, b) => a - b);
  const ms = (q) => pct(times, q).toFixed(3);
  console.log(`lookups=${starts.length} rows=${rows} p50_ms=${ms(0.5)} p90_ms=${ms(0.9)} p99_ms=${ms(0.99)} total_s=${total.toFixed(3)} index_s=${index.toFixed(3)}`);
} else {
  console.error('usage: node graphdb.mjs load DBFILE NODES_CSV EDGES_CSV | walk DBFILE STARTS_FILE | lookup DBFILE STARTS_FILE');
  process.exit(2);
}
conn.closeSync();
db.closeSync();
