// The built-in games (fairdeal/games/__init__.py's _BUILT_IN), registered on import: the
// one place the games are named. engine/rules.js imports this module for that effect.

import { register } from "../engine/registry.js";
import { GAME as KVITLACH } from "./kvitlach/index.js";
import { GAME as TOTO21 } from "./toto21/index.js";

register(TOTO21);
register(KVITLACH);
