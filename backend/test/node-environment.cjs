/** The unit project's environment: jest's node environment with the handle count of leftover-handles.cjs. */
const { TestEnvironment } = require('jest-environment-node');
const { withLeftoverHandles } = require('../../deploy/local/leftover-handles.cjs');

module.exports = withLeftoverHandles(TestEnvironment);
