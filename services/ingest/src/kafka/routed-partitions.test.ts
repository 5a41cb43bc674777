import t from 'tap'
import { RoutedPartitions, withRoutes, routesOf } from './routed-partitions.js'

const byKey =
  () =>
  ({ message }: any) =>
    Number(message.key)

t.test('records where each record was routed and names the partitions an answer lacks', async (t) => {
  const routes = new RoutedPartitions()
  const p = routes.wrap(byKey)()
  t.equal(
    p({ topic: 'events', message: { key: '2' }, partitionMetadata: [] } as any),
    2,
    'the inner partitioner decides',
  )
  p({ topic: 'events', message: { key: '0' }, partitionMetadata: [] } as any)
  p({ topic: 'identifies', message: { key: '2' }, partitionMetadata: [] } as any)
  t.same(
    routes.missingFrom([
      { topicName: 'events', partition: 2 },
      { topicName: 'identifies', partition: 2 },
    ] as any),
    ['events/0'],
  )
  t.same(
    routes.missingFrom([
      { topicName: 'events', partition: 2 },
      { topicName: 'events', partition: 0 },
      { topicName: 'identifies', partition: 2 },
    ] as any),
    [],
  )
  t.same(routes.missingFrom(undefined).sort(), ['events/0', 'events/2', 'identifies/2'])
  routes.reset()
  t.same(routes.missingFrom([]), [], 'reset forgets the previous flush')
  p({ topic: 'events', message: { key: '1' }, partitionMetadata: [] } as any)
  t.same(routes.missingFrom([]), ['events/1'], 'a record after the reset is recorded, on a topic seen before it too')
})

t.test('each partition of a topic is named once, whatever the order the records came in', async (t) => {
  const routes = new RoutedPartitions()
  const p = routes.wrap(byKey)()
  for (const [topic, key] of [
    ['events', '1'],
    ['identifies', '1'],
    ['events', '1'],
    ['events', '3'],
    ['identifies', '0'],
    ['events', '1'],
  ]) {
    p({ topic, message: { key }, partitionMetadata: [] } as any)
  }
  t.same(routes.missingFrom([]).sort(), ['events/1', 'events/3', 'identifies/0', 'identifies/1'])
  t.same(
    routes
      .missingFrom([
        { topicName: 'events', partition: 1 },
        { topicName: 'identifies', partition: 0 },
      ] as any)
      .sort(),
    ['events/3', 'identifies/1'],
  )
})

t.test('a producer carries its routes; one without them has none', async (t) => {
  const routes = new RoutedPartitions()
  const producer = {} as any
  t.equal(withRoutes(producer, routes), producer)
  t.equal(routesOf(producer), routes)
  t.equal(routesOf({} as any), undefined)
})
