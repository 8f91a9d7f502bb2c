// Placeholder until the showdown lands: no finding.
export function checkShowdown() {
  return { findings: [], hands: [] };
}
