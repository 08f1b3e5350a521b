db.createCollection('x');
