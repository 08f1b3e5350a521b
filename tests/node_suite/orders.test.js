// A project's own suite, unchanged under each profile: its configuration dials
// localhost at the port its docker-compose.yml publishes, as many Node projects' do;
// Node 17 on tries whatever `localhost` resolves to first, ::1 included, so it dials
// ::1 as well.
const { test } = require('node:test');
const assert = require('node:assert');
const { Client } = require('pg');

const config = require(process.env.SUITE_CONFIG);

for (const host of ['localhost', '::1']) {
  test(`orders round-trip on ${host}`, async () => {
    const c = new Client({ ...config, host });
    await c.connect();
    try {
      await c.query('create table if not exists orders (id serial primary key, total int not null)');
      await c.query('insert into orders (total) values ($1)', [42]);
      const r = await c.query('select count(*)::int as n, sum(total)::int as s from orders');
      assert.ok(r.rows[0].n >= 1);
      assert.strictEqual(r.rows[0].s % 42, 0);
    } finally {
      await c.end();
    }
  });
}
