// One error for everything found wrong with given data: ``code`` is the verifier's
// finding code for it (verifier/findings.py), ``message`` the reason.

export class FairdealError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "FairdealError";
    this.code = code;
  }
}
