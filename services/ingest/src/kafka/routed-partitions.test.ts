import t from 'tap'
import { RoutedPartitions, withRoutes, routesOf } from './routed-partitions.js'

const byKey = () => ({ message }: any) => Number(message.key)

t.test('records where each record was routed and names the partitions an answer lacks', async (t) => {
  const routes = new RoutedPartitions()
  const p = routes.wrap(byKey)()
  t.equal(p({ topic: 'events', message: { key: '2' }, partitionMetadata: [] } as any), 2, 'the inner partitioner decides')
  p({ topic: 'events', message: { key: '0' }, partitionMetadata: [] } as any)
  p({ topic: 'identifies', message: { key: '2' }, partitionMetadata: [] } as any)
  t.same(routes.missingFrom([{ topicName: 'events', partition: 2 }, { topicName: 'identifies', partition: 2 }] as any), ['events/0'])
  t.same(routes.missingFrom([{ topicName: 'events', partition: 2 }, { topicName: 'events', partition: 0 }, { topicName: 'identifies', partition: 2 }] as any), [])
  t.same(routes.missingFrom(undefined).sort(), ['events/0', 'events/2', 'identifies/2'])
  routes.reset()
  t.same(routes.missingFrom([]), [], 'reset forgets the previous flush')
})

t.test('a producer carries its routes; one without them has none', async (t) => {
  const routes = new RoutedPartitions()
  const producer = {} as any
  t.equal(withRoutes(producer, routes), producer)
  t.equal(routesOf(producer), routes)
  t.equal(routesOf({} as any), undefined)
})
