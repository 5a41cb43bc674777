const uniq = arr => [...new Set(arr)]

module.exports = uniq
