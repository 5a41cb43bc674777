module.exports = {
  request: require('./request'),
  response: require('./response'),
}
