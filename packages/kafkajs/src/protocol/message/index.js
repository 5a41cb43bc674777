const versions = {
  0: require('./v0'),
  1: require('./v1'),
}

module.exports = ({ version = 0 }) => versions[version]
