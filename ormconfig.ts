import { loadConfig } from './src/config/app-config';
import { newDataSource, openDatabaseTarget } from './src/database/database';

/**
 * The data source for TypeORM's CLI (`npm run migration:generate`), built from the same
 * configuration as the service. In embedded mode it starts PGlite and stops it on destroy.
 */
export default (async () => {
  const target = await openDatabaseTarget(loadConfig());
  const dataSource = newDataSource(target);
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = async () => {
    await destroy();
    await target.close();
  };
  return dataSource;
})();
