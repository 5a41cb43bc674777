const requestV0 = require('../v0/request')

module.exports = ({ mechanism }) => ({ ...requestV0({ mechanism }), apiVersion: 1 })
