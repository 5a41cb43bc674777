/** @type {<T1 extends string>(namespace: T1) => <T2 extends string>(type: T2) => `${T1}.${T2}`} */
module.exports = namespace => type => `${namespace}.${type}`
