// read.mjs prints, for each Parquet file named on the command line, one JSON
// line {"file", "columns": [{"name", "type"}], "rows": [...]} as DuckDB reads
// it. checkpoints/duckdb_test.go compares the rows with the ones it wrote.
// BIGINT values come out as strings (exact), DOUBLE and FLOAT as numbers.
import { DuckDBInstance } from '@duckdb/node-api';

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
for (const file of process.argv.slice(2)) {
  const quoted = file.replaceAll("'", "''");
  const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet('${quoted}')`);
  const names = reader.columnNames();
  const types = reader.columnTypes().map((t) => t.toString());
  const columns = names.map((name, i) => ({ name, type: types[i] }));
  process.stdout.write(JSON.stringify({ file, columns, rows: reader.getRowObjectsJson() }) + '\n');
}
connection.closeSync();
instance.closeSync();
