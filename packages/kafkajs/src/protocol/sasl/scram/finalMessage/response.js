module.exports = require('../firstMessage/response')
