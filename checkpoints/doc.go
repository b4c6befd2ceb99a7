// Package checkpoints saves and loads everything a training run must keep,
// as Parquet files that other tools (DuckDB, pandas, pyarrow) read as they
// are: a generic atomic Parquet writer and a checking reader, the row types
// of SAMem's memory (Q-table, state and thought clusters) and of the run
// metadata, and a Store that commits whole checkpoints of a run directory
// atomically, verifies them with a manifest of SHA-256 sums, keeps the last
// few and finds the latest.
//
// The promise: a checkpoint is either complete and verified or not there; a
// failed or killed write leaves the previous checkpoint intact; nothing is
// ever overwritten in place; a damaged, foreign or incompatible checkpoint
// gives an error naming the file and the problem.
//
// # Layout
//
//	<run>/checkpoints/LATEST                  "iter-0003\n": the commit point
//	<run>/checkpoints/iter-0003/MANIFEST.json format version, files, sizes, SHA-256
//	<run>/checkpoints/iter-0003/meta.parquet  one row: Meta
//	<run>/checkpoints/iter-0003/<method>/...  what the method's Save wrote
//	                 (SAMem: qtable.parquet, states.parquet, thoughts.parquet,
//	                 and the derived states.index, thoughts.index: see IsDerived)
//	<run>/checkpoints/.lock                   flock held by the open Store
//	<run>/checkpoints/.tmp-*                  a checkpoint being written (or
//	                 left by a killed process; Open removes it)
//
// # Saving and resuming
//
//	s, err := checkpoints.Open(runDir, 0)         // locks runDir; keeps DefaultKeep = 3
//	defer s.Close()
//	p, err := s.Begin(iteration)
//	defer p.Abort()                               // no-op after Commit
//	dir, err := p.MethodDir(method.Name())
//	err = saver.Save(ctx, dir)                    // e.g. SaveSAMem(ctx, dir, st)
//	_, err = p.Commit(ctx, meta)
//
//	dir, meta, err := s.Latest(ctx)               // errors.Is(err, ErrNoCheckpoint): start fresh
//	err = checkpoints.CheckCompatible(meta, model, dim)
//	st, err := checkpoints.LoadSAMem(ctx, filepath.Join(dir, "samem"), dim)
//
// # Reading a checkpoint elsewhere
//
// Every table is a plain Parquet file with snake_case columns, zstd
// compression and embeddings as lists of float32 (DuckDB: FLOAT[]), e.g.
//
//	SELECT s.text, t.text, q.q FROM 'qtable.parquet' q
//	JOIN 'states.parquet' s ON s.id = q.state_id
//	JOIN 'thoughts.parquet' t ON t.id = q.thought_id ORDER BY q.q DESC;
//
// TestDuckDBReadsCheckpoint proves it with DuckDB through the npm package
// @duckdb/node-api, installed by
// `cd checkpoints/testdata/duckdb && npm install --no-audit --no-fund`
// (CI sets CHECKPOINTS_REQUIRE_DUCKDB=1 so that a missing install fails
// instead of skipping).
package checkpoints
