// The seats this browser keeps, so that a reload resumes one: IndexedDB, which only this
// origin's pages can read, one record per table. The private key is stored as the CryptoKey
// itself (a structured clone): it stays non-extractable, its bytes are never read here.
// Every function answers false or null where the browser keeps nothing (IndexedDB missing
// or refused, as in some private windows): the page then holds the seat in memory only.

const DB = "fairdeal";
const STORE = "seats"; // keyed by table id
const VERSION = 1;
// How long to wait for a seat's lock: a reloaded tab's old page may still hold it a moment.
const LOCK_WAIT_MS = 3000;

// One connection per use, closed after: a database held open would block its deletion.
function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, VERSION);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "table" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("the seat store is blocked"));
  });
}

/** Run ``work(store)`` in one transaction; its answer once the transaction is committed. */
async function inStore(mode, work) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      // Strict: a statement number saved here is on disk before its command is sent.
      const tx = db.transaction(STORE, mode, { durability: "strict" });
      let result;
      Promise.resolve(work(tx.objectStore(STORE))).then((value) => (result = value), reject);
      tx.oncomplete = () => resolve(result);
      tx.onerror = tx.onabort = () => reject(tx.error ?? new Error("the seat store refused"));
    });
  } finally {
    db.close();
  }
}

const answer = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/** Keep (or update) a seat's record {table, seat, token, privateKey, publicHex, joinedSeq,
 * n, seeds}; whether it is now kept. */
export async function keepSeat(record) {
  try {
    await inStore("readwrite", (store) => store.put(record));
    return true;
  } catch (e) {
    console.warn("fairdeal: this browser cannot keep the seat:", e);
    return false;
  }
}

/** The record kept for ``tableId``, or null. */
export async function loadSeat(tableId) {
  try {
    const record = await inStore("readonly", (store) => answer(store.get(tableId)));
    return wellFormed(record) ? record : null;
  } catch {
    return null;
  }
}

/** Every record kept, for the list of seats to return to. */
export async function keptSeats() {
  try {
    return (await inStore("readonly", (store) => answer(store.getAll()))).filter(wellFormed);
  } catch {
    return [];
  }
}

// A record this page wrote (another version of it may have written another shape).
function wellFormed(r) {
  return (
    typeof r?.table === "string" &&
    /^t[0-9a-f]+$/.test(r.table) &&
    Number.isSafeInteger(r.seat) &&
    typeof r.token === "string" &&
    r.privateKey instanceof CryptoKey &&
    typeof r.publicHex === "string" &&
    Number.isSafeInteger(r.joinedSeq) &&
    Number.isSafeInteger(r.n) &&
    typeof r.seeds === "object" &&
    r.seeds !== null
  );
}

/** Forget the seat kept for ``tableId`` if it is the one of key ``publicHex``. */
export async function forgetSeat(tableId, publicHex) {
  try {
    await inStore("readwrite", async (store) => {
      const kept = await answer(store.get(tableId));
      if (kept?.publicHex === publicHex) store.delete(tableId);
    });
  } catch (e) {
    console.warn("fairdeal: could not forget the kept seat:", e);
  }
}

/** Hold the seat at ``tableId`` for this tab (a Web Lock): a release function, or null when
 * another tab of this browser plays it (two tabs signing for one seat would race on n). */
export function claimSeat(tableId) {
  if (!navigator.locks || !AbortSignal.timeout) return Promise.resolve(() => {}); // no locks here: the tab plays it
  return new Promise((resolve) => {
    const options = { signal: AbortSignal.timeout(LOCK_WAIT_MS) };
    navigator.locks
      .request(`fairdeal.seat.${tableId}`, options, () => new Promise((release) => resolve(release)))
      .catch((e) => resolve(e?.name === "TimeoutError" || e?.name === "AbortError" ? null : () => {}));
  });
}
