// fairdeal in the browser and in Node: the public API. Everything here is pure (bytes and
// values in, values out); the only I/O is WebCrypto. Functions named check* resolve to
// nothing or throw/reject a FairdealError whose ``code`` is the verifier's finding code.

export { hexToBytes, bytesToHex, base64ToBytes, bytesToBase64, utf8 } from "./bytes.js";
export { canonical, parseJson, parseStrict, EncodingError, JsonError } from "./canonical.js";
export { sha256 } from "./crypto.js";
export { FairdealError } from "./errors.js";
export { textOf } from "./inputs.js";
export { eventHash, checkSignedEvent, checkLink, GENESIS } from "./events.js";
export { importOperatorKey, keySetOf, keyId } from "./keys.js";
export {
  importWitnessKey,
  importWitnesses,
  witnessing,
  witnessBound,
  witnessFindings,
  quorumNames,
} from "./witnesses.js";
export {
  checkCardOpening,
  clientSeedCommitment,
  seedCommitment,
  shuffleKey,
  shuffle,
  cardSalt,
  cardCommitment,
  dealerChoice,
} from "./randomness.js";
export { statementBytes } from "./statements.js";
export { SeatStatements } from "./receipts.js";
export { TAGS } from "./tags.js";
export {
  verifyBundle,
  verifyExport,
  verifyText,
} from "./verify.js";
export { verifyInclusion, verifyConsistency, leafHash, rootOf } from "./merkle.js";
export { openCheckpoint, readNote, parseCheckpoint } from "./note.js";
export {
  readCheckpointFile,
  openCheckpointFile,
  readConsistency,
  readInclusion,
  checkConsistency,
  checkInclusionProof,
} from "./pinned.js";
export { explain, whoWon } from "./explain.js";
export { totoTotal } from "./games/toto21/hands.js";
export { best as kvitlachBest } from "./games/kvitlach/hands.js";
