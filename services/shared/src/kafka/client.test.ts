// The Kafka port (A11): the client it builds is the vendored kafkajs, and says so in the service's log.
import t from 'tap'
import { createLogger } from '../log.js'
import { createKafka, kafkaClientInfo } from './client.js'

t.test('createKafka logs which client the process runs', async (t) => {
  const lines: string[] = []
  createKafka(
    { brokers: ['127.0.0.1:1'], clientId: 'svc' },
    createLogger('info', {}, (l) => lines.push(l)),
  )
  t.same(kafkaClientInfo, { version: '2.2.4', vendored: true })
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]!), {
    level: 'info',
    msg: 'kafka client',
    clientId: 'svc',
    kafkajs: '2.2.4',
    vendored: true,
  })
})
