// Half of the unit tier (unit-tier.ts says why it is split in two).
import { runUnitTier } from './unit-tier.js'

await runUnitTier(1, 2)
