import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { toPgPlaceholders } from './placeholders.ts';

describe('toPgPlaceholders', () => {
  it('numbers placeholders in order', () => {
    assert.equal(toPgPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?)'), 'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)');
  });

  it('leaves SQL without placeholders unchanged', () => {
    assert.equal(toPgPlaceholders('SELECT 1'), 'SELECT 1');
  });

  it('skips ? inside single-quoted strings, including escaped quotes', () => {
    assert.equal(toPgPlaceholders("SELECT 'a?b', ? WHERE x = 'it''s ?' AND y = ?"), "SELECT 'a?b', $1 WHERE x = 'it''s ?' AND y = $2");
  });

  it('skips ? inside quoted identifiers and comments', () => {
    const sql = 'SELECT "we?ird" -- why?\n, ? /* what? */ FROM t WHERE a = ?';
    assert.equal(toPgPlaceholders(sql), 'SELECT "we?ird" -- why?\n, $1 /* what? */ FROM t WHERE a = $2');
  });

  it('copies an unterminated literal through without inventing parameters', () => {
    assert.equal(toPgPlaceholders("SELECT ?, 'open ?"), "SELECT $1, 'open ?");
  });

  it('returns the same rewrite from the cache', () => {
    const sql = 'UPDATE t SET a = ? WHERE id = ?';
    assert.equal(toPgPlaceholders(sql), toPgPlaceholders(sql));
    assert.equal(toPgPlaceholders(sql), 'UPDATE t SET a = $1 WHERE id = $2');
  });
});
