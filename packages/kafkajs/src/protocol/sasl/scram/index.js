module.exports = {
  firstMessage: {
    request: require('./firstMessage/request'),
    response: require('./firstMessage/response'),
  },
  finalMessage: {
    request: require('./finalMessage/request'),
    response: require('./finalMessage/response'),
  },
}
