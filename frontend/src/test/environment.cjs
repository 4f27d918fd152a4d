/** The frontend project's environment: jsdom with the handle count of deploy/local/leftover-handles.cjs. */
const { TestEnvironment } = require('jest-environment-jsdom');
const { withLeftoverHandles } = require('../../../deploy/local/leftover-handles.cjs');

module.exports = withLeftoverHandles(TestEnvironment);
