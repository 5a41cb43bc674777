// Imported first by the entry points that use Kafka, before anything loads kafkajs
// (kafkajs-fixes.ts says why and what). KAFKAJS_FIXES=off leaves kafkajs unchanged: for an operator
// who suspects the replacements, and for before/after measurements. Installing runs the replacements'
// self-test first (kafkajs-fixes-self-test.ts), hence the await: nothing loads kafkajs before it ends.
import { installKafkajsFixes, kafkajsFixesOff } from './kafkajs-fixes.js'

const setting = process.env.KAFKAJS_FIXES
if (setting !== undefined && setting !== '' && setting !== 'on' && setting !== 'off') {
  throw new Error(`KAFKAJS_FIXES must be on or off, not ${JSON.stringify(setting)}`)
}
if (setting === 'off') kafkajsFixesOff()
else await installKafkajsFixes()
