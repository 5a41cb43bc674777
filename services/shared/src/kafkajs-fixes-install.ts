// Imported first by the entry points that produce to Kafka, before anything loads kafkajs
// (kafkajs-fixes.ts says why and what).
import { installKafkajsFixes } from './kafkajs-fixes.js'

installKafkajsFixes()
