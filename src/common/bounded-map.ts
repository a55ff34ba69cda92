/**
 * Sets `key` in `map`, first dropping the oldest entry (insertion order) when the
 * map already holds `max`: a cache whose size does not follow the number of
 * tenants or tokens it has seen.
 */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (!map.has(key) && map.size >= max) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

/**
 * A least-recently-used cache over a Map: the value of `key`, moved to the newest
 * end; when absent, `make()`'s value set under `max` (or undefined without `make`).
 */
export function recentlyUsed<K, V>(map: Map<K, V>, key: K, max: number): V | undefined;
export function recentlyUsed<K, V>(map: Map<K, V>, key: K, max: number, make: () => V): V;
export function recentlyUsed<K, V>(map: Map<K, V>, key: K, max: number, make?: () => V): V | undefined {
  const hit = map.get(key);
  if (hit !== undefined) {
    map.delete(key);
    map.set(key, hit);
    return hit;
  }
  if (!make) return undefined;
  const value = make();
  setBounded(map, key, value, max);
  return value;
}
